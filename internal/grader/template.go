package grader

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// promptInput is an executable prompt template's stdin: AgentV's payload (prompt-resolution
// executePromptTemplate), snake_case. trace is always null: evalgate keeps no AgentV trace
// object (tool calls are in messages).
type promptInput struct {
	Criteria       string           `json:"criteria"`
	ExpectedOutput []any            `json:"expected_output"`
	Output         string           `json:"output"`
	Answer         string           `json:"answer"`
	Messages       []result.Message `json:"messages"`
	InputFiles     []string         `json:"input_files"`
	Input          []any            `json:"input"`
	Metadata       map[string]any   `json:"metadata"`
	Trace          any              `json:"trace"`
	FileChanges    *string          `json:"file_changes"`
	WorkspacePath  *string          `json:"workspace_path"`
	Config         map[string]any   `json:"config"`
}

// renderPrompt runs a grader's executable prompt template (prompt: {command: [...]}) as
// AgentV does: the test as JSON on stdin, in the script's directory; what it prints, trimmed,
// is the whole judge prompt. It runs with the code graders' time limit. A script that cannot
// start, fails, times out or prints nothing is an error: grading with some other prompt would
// not be the grading its author wrote.
func renderPrompt(ctx context.Context, spec *suite.Grader, in *Input, scripts *Pristine) (string, error) {
	argv := spec.PromptCommand
	if err := onPath(argv[0]); err != nil {
		return "", fmt.Errorf("prompt template %s: %w", filepath.Base(argv[len(argv)-1]), err)
	}
	stdin, err := agentvJSON(promptPayload(in, spec.Config))
	if err != nil {
		return "", fmt.Errorf("prompt template: build stdin: %w", err)
	}
	run, err := runScript(ctx, "prompt template", argv, filepath.Dir(argv[len(argv)-1]), stdin, defaultCodeTimeout, workspaceOf(in), scripts, in.User)
	if err != nil {
		return "", err
	}
	switch {
	case run.exitCode != 0:
		return "", fmt.Errorf("prompt template exited with code %d%s", run.exitCode, stderrSuffix(run.stderr.String()))
	case run.stdout.overflow:
		return "", fmt.Errorf("prompt template wrote more than %d bytes to stdout", maxCodeOutput)
	}
	prompt := strings.TrimSpace(run.stdout.String())
	if prompt == "" {
		return "", errors.New("prompt template printed nothing (it must print the judge prompt on stdout)")
	}
	return prompt, nil
}

func promptPayload(in *Input, config map[string]any) promptInput {
	p := promptInput{
		ExpectedOutput: agentvMessages(nil),
		Messages:       []result.Message{},
		InputFiles:     []string{},
		Input:          agentvMessages(nil),
		Config:         config,
	}
	if t := in.Test; t != nil {
		p.Criteria, p.Metadata = t.Criteria, t.Metadata
		p.ExpectedOutput = agentvMessages(t.ExpectedOutput)
		p.InputFiles = append(p.InputFiles, t.InputFiles...)
		p.Input = agentvMessages(t.Input)
	}
	if out := in.Output; out != nil {
		p.Output, p.Answer = out.Answer, out.Answer
		p.Messages = append(p.Messages, out.Messages...)
		if out.FileChanges != "" {
			p.FileChanges = &out.FileChanges
		}
		if out.Workspace != "" {
			p.WorkspacePath = &out.Workspace
		}
	}
	return p
}
