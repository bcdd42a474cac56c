package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// interruptTarget cancels the run once both tests are in flight, then waits for the cancellation,
// as an agent the user interrupts with Ctrl-C does.
type interruptTarget struct {
	cancel  context.CancelFunc
	started sync.WaitGroup
}

func (c *interruptTarget) Run(ctx context.Context, _ *target.Request) (*result.Output, error) {
	c.started.Done()
	c.started.Wait()
	c.cancel()
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestInterruptedTestsAreSkippedNotErrors: tests the run's cancellation cut short are skipped
// with why, never errors ("context canceled"), and progress prints no score for them.
func TestInterruptedTestsAreSkippedNotErrors(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	tg := &interruptTarget{cancel: cancel}
	tg.started.Add(2)
	cfg := cfgFor(tg, 2)
	var progress strings.Builder
	cfg.Progress = &progress
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	cfg.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(2 * time.Second)
		return clock
	}
	run, err := Run(ctx, []*suite.Suite{mkSuite("a", 1, 1)}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	for _, tr := range run.Suites[0].Tests {
		if tr.Verdict != result.Skip || !strings.Contains(tr.Error, "interrupted") {
			t.Errorf("%s: verdict %s (%q), want skip: interrupted", tr.ID, tr.Verdict, tr.Error)
		}
	}
	if run.Summary.Errors != 0 {
		t.Errorf("summary counts %d errors", run.Summary.Errors)
	}
	for _, line := range strings.Split(strings.TrimSpace(progress.String()), "\n") {
		if strings.HasPrefix(line, "[") && (!strings.Contains(line, " skip (") || strings.Contains(line, "0.00")) {
			t.Errorf("progress line %q: want \"skip\" and no score", line)
		}
	}
	if !strings.Contains(progress.String(), "[2/2]") {
		t.Errorf("progress has no line per test:\n%s", progress.String())
	}
}
