// Package mock is the offline target: it answers every test with a fixed response (or a reply
// recorded for that test), as AgentV's mock provider does. It is the offline LLM mock seen as a
// target, so both read the same settings.
package mock

import (
	"context"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	llmmock "github.com/evalgate/evalgate/internal/llm/mock"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// defaultResponse is AgentV's mock default, so suites written against AgentV read the same.
const defaultResponse = `{"answer":"Mock provider response"}`

// Target answers every test with the configured response.
type Target struct {
	client *llmmock.Client
}

var _ target.Target = (*Target)(nil)

// New builds a mock target from a targets.yaml entry (response, replies, delay_ms, error).
func New(cfg *suite.TargetConfig) (*Target, error) {
	settings := cfg.Settings
	if settings["response"] == nil && settings["replies"] == nil {
		settings = map[string]any{"response": defaultResponse}
		for k, v := range cfg.Settings {
			settings[k] = v
		}
	}
	c, err := llmmock.New(settings, cfg.Dir, llmmock.WithRoot(cfg.Root))
	if err != nil {
		return nil, err
	}
	return &Target{client: c}, nil
}

// Run returns the response for the test.
func (t *Target) Run(ctx context.Context, req *target.Request) (*result.Output, error) {
	start := time.Now()
	// As for a model target, the attempt is the trial (0-based), so that recorded replies can
	// differ per trial.
	tag := llm.Tag{TestID: req.Test.ID, Attempt: max(req.Attempt-1, 0)}
	if req.Suite != nil {
		tag.Suite = req.Suite.Name
	}
	resp, err := t.client.Complete(ctx, &llm.Request{Messages: []llm.Message{{Role: "user", Content: req.Prompt}}, Tag: tag})
	if err != nil {
		return nil, err
	}
	return &result.Output{
		Answer:     resp.Text,
		DurationMS: time.Since(start).Milliseconds(),
		Usage:      result.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens},
	}, nil
}
