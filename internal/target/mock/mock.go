// Package mock is the offline target: it answers every test with a fixed response, as
// AgentV's mock provider does.
package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// defaultResponse is AgentV's mock default, so suites written against AgentV read the same.
const defaultResponse = `{"answer":"Mock provider response"}`

// Target answers every test with the configured response.
type Target struct {
	response string
	delay    time.Duration
	err      string
}

var _ target.Target = (*Target)(nil)

// New builds a mock target from a targets.yaml entry (response, delay_ms, error).
func New(cfg *suite.TargetConfig) (*Target, error) {
	t := &Target{response: defaultResponse}
	switch r := cfg.Settings["response"].(type) {
	case nil:
	case string:
		t.response = r
	default:
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("mock target %s: response: %w", cfg.Name, err)
		}
		t.response = string(b)
	}
	if d, ok := number(cfg.Settings["delay_ms"]); ok {
		t.delay = time.Duration(d) * time.Millisecond
	}
	if e, ok := cfg.Settings["error"].(string); ok {
		t.err = e
	}
	return t, nil
}

// Run returns the response after the configured delay.
func (t *Target) Run(ctx context.Context, _ *target.Request) (*result.Output, error) {
	if t.delay > 0 {
		timer := time.NewTimer(t.delay)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
	if t.err != "" {
		return nil, errors.New(t.err)
	}
	return &result.Output{Answer: t.response, DurationMS: t.delay.Milliseconds()}, nil
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
