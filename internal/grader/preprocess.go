package grader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// maxFileText caps what is read of a file the agent answered with, before the judge's own
// answer budget applies.
const maxFileText = 1 << 20

var remotePath = regexp.MustCompile(`(?i)^[a-z]+://`)

// answerText is the answer a judge grader sees: the output's answer, or, when the agent's last
// message is a content list holding files, its text blocks and each file as text, in order
// (AgentV's extractTextWithPreprocessors). A file is converted by the grader's preprocessor
// for its media type, else read as UTF-8 text. A file that cannot be turned into text becomes
// a "[file preprocessing warning]" line the judge sees, as in AgentV: the judge then grades
// an answer that visibly lacks it, rather than an empty one.
func answerText(ctx context.Context, in *Input, spec *suite.Grader, scripts *Pristine) string {
	if in.Output == nil {
		return ""
	}
	msg := lastAssistant(in.Output.Messages)
	if msg == nil || msg.Blocks == nil {
		return in.Output.Answer
	}
	var parts, warnings []string
	for _, b := range msg.Blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "file":
			text, err := fileText(ctx, in, spec.Preprocessors, b, scripts)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("[file preprocessing warning] %s (%s): %v", b.Path, b.MediaType, err))
				continue
			}
			if text != "" {
				parts = append(parts, text)
			}
		}
	}
	out := strings.Join(parts, "\n")
	if len(warnings) > 0 {
		out = strings.Join(append([]string{out}, warnings...), "\n")
		out = strings.TrimPrefix(out, "\n")
	}
	return out
}

func lastAssistant(msgs []result.Message) *result.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" && (msgs[i].Content != "" || msgs[i].Blocks != nil) {
			return &msgs[i]
		}
	}
	return nil
}

// fileText turns one file block into "[[ file: path ]]" and its text.
func fileText(ctx context.Context, in *Input, pre []*suite.Preprocessor, b result.ContentBlock, scripts *Pristine) (string, error) {
	path, err := localFile(in.Output.Dir, b.Path)
	if err != nil {
		return "", err
	}
	header := "[[ file: " + b.Path + " ]]\n"
	for _, p := range pre {
		if suite.MediaType(p.Type) == suite.MediaType(b.MediaType) {
			text, err := runPreprocessor(ctx, in, p, path, b, scripts)
			if err != nil {
				return "", err
			}
			return header + text, nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileText))
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return "", fmt.Errorf("default UTF-8 read produced binary or invalid text; configure a preprocessor")
	}
	return header + strings.ReplaceAll(string(data), "\r\n", "\n"), nil
}

// localFile resolves a file block's path against the directory the agent ran in. The agent is
// the code under test: it may name only files inside that directory, so that its answer
// cannot make the judge (a third party) read anything else on the runner.
func localFile(dir, p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		p = rest
	} else if remotePath.MatchString(p) {
		return "", fmt.Errorf("remote file paths are not supported for preprocessing")
	}
	if dir == "" {
		return "", fmt.Errorf("the target reports no directory to find the file in")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.Rel(realDir, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("outside the directory the agent ran in (%s); not read", dir)
	}
	return real, nil
}

// runPreprocessor runs a preprocessor contained, as a code grader runs: the file's path,
// original path and media type on stdin as JSON, its trimmed stdout the file's text.
func runPreprocessor(ctx context.Context, in *Input, p *suite.Preprocessor, path string, b result.ContentBlock, scripts *Pristine) (string, error) {
	stdin, err := json.Marshal(map[string]string{"path": path, "original_path": b.Path, "media_type": b.MediaType})
	if err != nil {
		return "", err
	}
	run, err := runScript(ctx, "preprocessor "+p.Type, p.Command, suiteDir(in), stdin, defaultCodeTimeout, workspaceOf(in), scripts, in.User)
	if err != nil {
		return "", err
	}
	if run.exitCode != 0 {
		if msg := strings.TrimSpace(run.stderr.String()); msg != "" {
			return "", fmt.Errorf("%s", msg)
		}
		return "", fmt.Errorf("preprocessor exited with code %d", run.exitCode)
	}
	return strings.TrimSpace(run.stdout.String()), nil
}
