// Package mock is the offline model, as AgentV's mock provider: it answers with a fixed
// `response`, or with replies recorded per test (and optionally per grader, sample and
// attempt) in a JSONL file. Quickstarts and CI runs grade with it without keys or network.
package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/jsonl"
	"github.com/evalgate/evalgate/internal/llm"
)

// row is one recorded reply. Empty Suite and Grader, and nil Sample and Attempt, match any.
type row struct {
	TestID  string          `json:"test_id"`
	Suite   string          `json:"suite,omitempty"`
	Grader  string          `json:"grader,omitempty"`
	Sample  *int            `json:"sample,omitempty"`
	Attempt *int            `json:"attempt,omitempty"`
	Reply   json.RawMessage `json:"reply"`
	text    string
}

// Client replies from its configuration; it is safe for concurrent use (read-only after New).
type Client struct {
	response string
	rows     []*row
	delay    time.Duration
	err      string
	usage    llm.Usage
}

var _ llm.Client = (*Client)(nil)

// maxRepliesSize bounds a replies file.
const maxRepliesSize = 256 << 20

// Option configures New.
type Option func(*options)

type options struct{ root string }

// WithRoot confines the replies file to root, the repository: a path or a symbolic link that
// leads outside it is refused. Without it the root is fsroot.Default(dir).
func WithRoot(root string) Option {
	return func(o *options) { o.root = root }
}

// New builds a mock from a targets.yaml entry's settings: response, replies (a JSONL path
// relative to dir, read inside the root), delay_ms, error, usage {input, output}.
func New(settings map[string]any, dir string, opts ...Option) (*Client, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.root == "" {
		o.root = fsroot.Default(dir)
	}
	c := &Client{}
	if r, ok := settings["response"]; ok {
		c.response = text(r)
	}
	if p, ok := settings["replies"].(string); ok && p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		rows, err := load(o.root, p)
		if err != nil {
			return nil, err
		}
		c.rows = rows
	}
	if d, ok := number(settings["delay_ms"]); ok {
		c.delay = time.Duration(d) * time.Millisecond
	}
	c.err, _ = settings["error"].(string)
	if u, ok := settings["usage"].(map[string]any); ok {
		in, _ := number(u["input"])
		out, _ := number(u["output"])
		c.usage = llm.Usage{InputTokens: int64(in), OutputTokens: int64(out)}
	}
	return c, nil
}

func load(root, path string) ([]*row, error) {
	data, err := fsroot.ReadFile(root, path, maxRepliesSize)
	if err != nil {
		return nil, fmt.Errorf("mock replies: %w", err)
	}
	var rows []*row
	err = jsonl.Each(data, path, func(_ int, r *row) error {
		if r.TestID == "" || r.Reply == nil {
			return errors.New("a reply row needs test_id and reply")
		}
		var asString string
		if json.Unmarshal(r.Reply, &asString) == nil {
			r.text = asString
		} else {
			r.text = string(r.Reply)
		}
		rows = append(rows, r)
		return nil
	})
	return rows, err
}

// Complete returns the most specific recorded reply for the request's tag, else the response.
func (c *Client) Complete(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if c.delay > 0 {
		t := time.NewTimer(c.delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if c.err != "" {
		return nil, errors.New(c.err)
	}
	if r := c.match(req.Tag); r != nil {
		return &llm.Response{Text: r.text, Usage: c.usage, Model: "mock"}, nil
	}
	if c.response != "" {
		return &llm.Response{Text: c.response, Usage: c.usage, Model: "mock"}, nil
	}
	return nil, fmt.Errorf("mock: suite %q test %q grader %q: %w", req.Tag.Suite, req.Tag.TestID, req.Tag.Grader, llm.ErrNoReply)
}

// match picks the row that matches the tag with the most fields set.
func (c *Client) match(tag llm.Tag) *row {
	var best *row
	bestScore := -1
	for _, r := range c.rows {
		if r.TestID != tag.TestID ||
			(r.Suite != "" && r.Suite != tag.Suite) ||
			(r.Grader != "" && r.Grader != tag.Grader) ||
			(r.Sample != nil && *r.Sample != tag.Sample) ||
			(r.Attempt != nil && *r.Attempt != tag.Attempt) {
			continue
		}
		score := 0
		for _, set := range []bool{r.Suite != "", r.Grader != "", r.Sample != nil, r.Attempt != nil} {
			if set {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = r, score
		}
	}
	return best
}

func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
