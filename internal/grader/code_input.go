package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// codeInput is a code grader's stdin: AgentV's payload with its snake_case names. Fields the
// run did not produce are null, as in AgentV.
type codeInput struct {
	Criteria       string          `json:"criteria"`
	ExpectedOutput []suite.Message `json:"expected_output"`
	// Output is the final answer; nil (null) when it was written to OutputPath instead.
	Output        *string          `json:"output"`
	OutputPath    string           `json:"output_path,omitempty"`
	Messages      []result.Message `json:"messages"`
	InputFiles    []string         `json:"input_files"`
	Input         []suite.Message  `json:"input"`
	Metadata      map[string]any   `json:"metadata"`
	TraceSummary  traceSummary     `json:"trace_summary"`
	TokenUsage    *codeTokens      `json:"token_usage"`
	CostUSD       *float64         `json:"cost_usd"`
	DurationMS    *int64           `json:"duration_ms"`
	FileChanges   *string          `json:"file_changes"`
	WorkspacePath *string          `json:"workspace_path"`
	Config        map[string]any   `json:"config"`
}

// codeTokens is AgentV's token_usage object.
type codeTokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Cached int64 `json:"cached"`
}

// codePayload encodes the stdin of a code grader. A large answer goes to a temp file named by
// output_path (holding the JSON that output would have held); cleanup removes it.
func codePayload(in *Input, config map[string]any) (stdin []byte, cleanup func(), err error) {
	cleanup = func() {}
	p := codeInput{
		ExpectedOutput: []suite.Message{},
		Messages:       []result.Message{},
		InputFiles:     []string{},
		Input:          []suite.Message{},
		TraceSummary:   summarize(in.Output),
		Config:         config,
	}
	if t := in.Test; t != nil {
		p.Criteria, p.Metadata = t.Criteria, t.Metadata
		p.ExpectedOutput = append(p.ExpectedOutput, t.ExpectedOutput...)
		p.InputFiles = append(p.InputFiles, t.InputFiles...)
		p.Input = append(p.Input, t.Input...)
	}
	answer := ""
	if out := in.Output; out != nil {
		answer = out.Answer
		p.Messages = append(p.Messages, out.Messages...)
		if u := out.Usage; u.InputTokens != 0 || u.OutputTokens != 0 || u.CachedTokens != 0 {
			p.TokenUsage = &codeTokens{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedTokens}
		}
		if out.Usage.CostUSD > 0 {
			p.CostUSD = &out.Usage.CostUSD
		}
		if out.DurationMS > 0 {
			p.DurationMS = &out.DurationMS
		}
		if out.FileChanges != "" {
			p.FileChanges = &out.FileChanges
		}
		if out.Workspace != "" {
			p.WorkspacePath = &out.Workspace
		}
	}
	encoded, err := encodeJSON(answer, "")
	if err != nil {
		return nil, cleanup, fmt.Errorf("encode output: %w", err)
	}
	if len(encoded) > outputFileThreshold {
		dir, err := os.MkdirTemp("", "evalgate-grader-")
		if err != nil {
			return nil, cleanup, fmt.Errorf("write output file: %w", err)
		}
		cleanup = func() { _ = os.RemoveAll(dir) }
		p.OutputPath = filepath.Join(dir, "output.json")
		if err := os.WriteFile(p.OutputPath, encoded, 0o600); err != nil {
			cleanup()
			return nil, func() {}, fmt.Errorf("write output file: %w", err)
		}
	} else {
		p.Output = &answer
	}
	stdin, err = encodeJSON(p, "  ")
	if err != nil {
		cleanup()
		return nil, func() {}, fmt.Errorf("encode payload: %w", err)
	}
	return stdin, cleanup, nil
}

// encodeJSON encodes v without HTML escaping (diffs and code are full of < > &), indented when
// indent is set.
func encodeJSON(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// headBuffer keeps the first max bytes written and notes overflow. It never fails a write, so
// a chatty command is not killed by a broken pipe.
type headBuffer struct {
	buf      bytes.Buffer
	max      int
	overflow bool
}

func (h *headBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := h.max - h.buf.Len(); room < len(p) {
		h.overflow = true
		p = p[:max(room, 0)]
	}
	h.buf.Write(p)
	return n, nil
}

func (h *headBuffer) String() string { return h.buf.String() }

// tailBuffer keeps the last max bytes written (the end of stderr says what went wrong).
type tailBuffer struct {
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

func (t *tailBuffer) String() string { return string(t.buf) }
