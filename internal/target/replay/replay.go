// Package replay is the target for outputs recorded earlier (by a previous workflow step, or a
// captured agent run): each test's answer, tool calls and workspace diff come from a JSONL file
// keyed by test id, so grading needs no agent and no network.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/jsonl"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// row is one recorded output. Answer may be given as answer, text, or the last assistant
// message of output (AgentV's CLI output shape).
type row struct {
	TestID      string            `json:"test_id"`
	Suite       string            `json:"suite,omitempty"`
	Answer      *string           `json:"answer,omitempty"`
	Text        *string           `json:"text,omitempty"`
	Output      []message         `json:"output,omitempty"`
	ToolCalls   []result.ToolCall `json:"tool_calls,omitempty"`
	FileChanges string            `json:"file_changes,omitempty"`
	TokenUsage  *struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
		Cached int64 `json:"cached"`
	} `json:"token_usage,omitempty"`
	CostUSD    float64 `json:"cost_usd,omitempty"`
	DurationMS int64   `json:"duration_ms,omitempty"`
	Error      string  `json:"error,omitempty"`
}

type message struct {
	Role      string            `json:"role"`
	Content   json.RawMessage   `json:"content"`
	ToolCalls []result.ToolCall `json:"tool_calls,omitempty"`
}

// Target serves recorded outputs.
type Target struct {
	path string
	rows map[string]*row // key: suite + "\x00" + test id, or "\x00" + test id
}

var _ target.Target = (*Target)(nil)

// maxOutputsSize bounds an outputs file: recorded outputs carry whole diffs and transcripts.
const maxOutputsSize = 1 << 30

// New loads the outputs file named by `outputs:` (alias `fixtures:`), relative to the targets
// file's directory and read inside cfg.Root (fsroot.Default of that directory when unset):
// a path or a symbolic link that leads outside the repository is refused.
func New(cfg *suite.TargetConfig) (*Target, error) {
	name, _ := cfg.Settings["outputs"].(string)
	if name == "" {
		name, _ = cfg.Settings["fixtures"].(string)
	}
	if name == "" {
		return nil, fmt.Errorf("replay target %s: outputs: is required (a JSONL file of recorded outputs)", cfg.Name)
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(cfg.Dir, path)
	}
	root := cfg.Root
	if root == "" {
		root = fsroot.Default(cfg.Dir)
	}
	data, err := fsroot.ReadFile(root, path, maxOutputsSize)
	if err != nil {
		return nil, fmt.Errorf("replay target %s: %w", cfg.Name, err)
	}
	rows, err := parse(data, path)
	if err != nil {
		return nil, fmt.Errorf("replay target %s: %w", cfg.Name, err)
	}
	return &Target{path: path, rows: rows}, nil
}

func parse(data []byte, path string) (map[string]*row, error) {
	rows := map[string]*row{}
	err := jsonl.Each(data, path, func(_ int, r *row) error {
		if r.TestID == "" {
			return errors.New("row has no test_id")
		}
		rows[r.Suite+"\x00"+r.TestID] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// Run returns the recorded output for the test, or its recorded error.
func (t *Target) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	r := t.rows[req.Suite.Name+"\x00"+req.Test.ID]
	if r == nil {
		r = t.rows["\x00"+req.Test.ID]
	}
	if r == nil {
		return nil, fmt.Errorf("no recorded output for test %s in %s", req.Test.ID, t.path)
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	out := &result.Output{
		ToolCalls:   r.ToolCalls,
		FileChanges: r.FileChanges,
		DurationMS:  r.DurationMS,
		Usage:       result.Usage{CostUSD: r.CostUSD},
	}
	if r.TokenUsage != nil {
		out.Usage.InputTokens, out.Usage.OutputTokens, out.Usage.CachedTokens = r.TokenUsage.Input, r.TokenUsage.Output, r.TokenUsage.Cached
	}
	for _, m := range r.Output {
		msg := result.Message{Role: m.Role, Content: target.MessageText(m.Content), ToolCalls: m.ToolCalls}
		out.Messages = append(out.Messages, msg)
		out.ToolCalls = append(out.ToolCalls, m.ToolCalls...)
		if m.Role == "assistant" && msg.Content != "" {
			out.Answer = msg.Content
		}
	}
	switch {
	case r.Answer != nil:
		out.Answer = *r.Answer
	case r.Text != nil && out.Answer == "":
		out.Answer = *r.Text
	}
	return out, nil
}
