package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// codeInput is a code grader's stdin: AgentV's payload with its snake_case names. Fields the
// run did not produce are null, as in AgentV.
type codeInput struct {
	Criteria       string `json:"criteria"`
	ExpectedOutput []any  `json:"expected_output"`
	// Output is the final answer; nil (null) when it was written to OutputPath instead.
	Output        *string          `json:"output"`
	OutputPath    string           `json:"output_path,omitempty"`
	Messages      []result.Message `json:"messages"`
	InputFiles    []string         `json:"input_files"`
	Input         []any            `json:"input"`
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
		ExpectedOutput: agentvMessages(nil),
		Messages:       []result.Message{},
		InputFiles:     []string{},
		Input:          agentvMessages(nil),
		TraceSummary:   summarize(in.Output),
		Config:         config,
	}
	if t := in.Test; t != nil {
		p.Criteria, p.Metadata = t.Criteria, t.Metadata
		p.ExpectedOutput = agentvMessages(t.ExpectedOutput)
		p.InputFiles = append(p.InputFiles, t.InputFiles...)
		p.Input = agentvMessages(t.Input)
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
	stdin, err = agentvJSON(p)
	if err != nil {
		cleanup()
		return nil, func() {}, fmt.Errorf("encode payload: %w", err)
	}
	return stdin, cleanup, nil
}

// agentvMessages renders test messages as AgentV puts them on a script's stdin: content is
// the text, or, for a content list, the list of blocks AgentV's loader produced — text
// {type, value}, file {type, value, path, text, resolved_path} and image {type, media_type,
// path} (AgentV hands code graders a file path for an image, never its bytes). Files attached
// with input_files stay in files.
func agentvMessages(msgs []suite.Message) []any {
	out := make([]any, 0, len(msgs))
	for _, m := range msgs {
		w := map[string]any{"role": m.Role, "content": m.Content}
		if m.Blocks != nil {
			blocks := make([]any, 0, len(m.Blocks))
			var inBlocks []string
			for _, b := range m.Blocks {
				switch b.Type {
				case "text":
					blocks = append(blocks, map[string]any{"type": "text", "value": b.Text})
				case "file":
					blocks = append(blocks, map[string]any{"type": "file", "value": b.Value, "path": b.DisplayPath(), "text": b.Text, "resolved_path": b.Path})
					inBlocks = append(inBlocks, b.Path)
				case "image":
					blocks = append(blocks, map[string]any{"type": "image", "media_type": b.MediaType, "path": b.Path})
				}
			}
			w["content"] = blocks
			var attached []string
			for _, f := range m.Files {
				if !slices.Contains(inBlocks, f) {
					attached = append(attached, f)
				}
			}
			if len(attached) > 0 {
				w["files"] = attached
			}
		} else if len(m.Files) > 0 {
			w["files"] = m.Files
		}
		if len(m.ToolCalls) > 0 {
			w["tool_calls"] = m.ToolCalls
		}
		out = append(out, w)
	}
	return out
}

// agentvJSON encodes a script's stdin as AgentV does: pretty JSON with every object key in
// snake_case (AgentV's toSnakeCaseDeep reaches config, metadata and tool arguments too, so a
// script written for AgentV reads the same keys here).
func agentvJSON(v any) ([]byte, error) {
	raw, err := encodeJSON(v, "")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return encodeJSON(snakeKeys(tree), "  ")
}

// snakeKeys converts the object keys of a decoded JSON value to snake_case, recursively.
func snakeKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[snakeCase(k)] = snakeKeys(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = snakeKeys(e)
		}
		return x
	}
	return v
}

// snakeCase is AgentV's toSnakeCase: each upper-case letter becomes "_" and its lower case;
// a key that starts with an upper-case letter (a tool name such as Read) is left alone.
func snakeCase(k string) string {
	if k == "" || (k[0] >= 'A' && k[0] <= 'Z') {
		return k
	}
	var b strings.Builder
	for _, c := range k {
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
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
