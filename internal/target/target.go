// Package target runs the system under test for one test case and returns what it produced:
// the answer, the transcript and tool calls, the workspace diff, token use and timing.
//
// A target's failure to produce an answer is returned as an error; the engine records it as an
// `error` result for that test (never a pass) and goes on with the rest of the suite.
package target

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Target produces an output for a test.
type Target interface {
	Run(ctx context.Context, req *Request) (*result.Output, error)
}

// Request is one test to run against a target.
type Request struct {
	Suite *suite.Suite
	Test  *suite.Test
	// Prompt is the test input rendered as one text (role markers when multi-turn).
	Prompt string
	// Attempt is the 1-based attempt number ({ATTEMPT} in CLI commands).
	Attempt int
	// Workspace is the prepared scratch directory the agent runs in ("" = none).
	Workspace string
	// User is who a command target runs its agent as (nil = evalgate's own user).
	User *proc.User
}

// MessageText reads an AgentV message's content: a string, or content blocks whose text parts
// are joined by newlines; anything else is its JSON text.
func MessageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text, Value string }
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" || b.Type == "" {
				parts = append(parts, b.Text+b.Value)
			}
		}
		return strings.Join(parts, "\n")
	}
	return strings.TrimSpace(string(raw))
}
