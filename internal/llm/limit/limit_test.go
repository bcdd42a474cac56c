package limit_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm/limit"
)

func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	l := limit.New(limit.Config{MaxInFlight: 3})
	var cur, peak atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			release, err := l.Acquire(t.Context(), 10)
			if err != nil {
				t.Error(err)
				return
			}
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(2 * time.Millisecond)
			cur.Add(-1)
			release()
			release() // releasing twice must not free a second slot
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p == 0 {
		t.Errorf("peak in flight = %d, want 1..3", p)
	}
}

func TestPauseHoldsEveryone(t *testing.T) {
	t.Parallel()
	l := limit.New(limit.Config{})
	l.Pause(150 * time.Millisecond)
	start := time.Now()
	release, err := l.Acquire(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Errorf("admitted after %s during a 150ms pause", el)
	}
}

func TestWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    *limit.Limiter
		prep func(*limit.Limiter)
	}{
		{"slots", limit.New(limit.Config{MaxInFlight: 1}), func(l *limit.Limiter) { _, _ = l.Acquire(t.Context(), 0) }},
		{"pause", limit.New(limit.Config{}), func(l *limit.Limiter) { l.Pause(time.Hour) }},
		{"rpm", limit.New(limit.Config{RequestsPerMinute: 1}), func(l *limit.Limiter) { _, _ = l.Acquire(t.Context(), 0) }},
		{"tpm", limit.New(limit.Config{TokensPerMinute: 100}), func(l *limit.Limiter) { _, _ = l.Acquire(t.Context(), 100) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.prep(tt.l)
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			if _, err := tt.l.Acquire(ctx, 50); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want deadline exceeded", err)
			}
		})
	}
}

func TestOversizedRequestStillAdmitted(t *testing.T) {
	t.Parallel()
	l := limit.New(limit.Config{TokensPerMinute: 100})
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := l.Acquire(ctx, 10_000); err != nil {
		t.Fatalf("a request above the per-minute budget must run alone, not fail: %v", err)
	}
}

func TestNilLimiterAdmits(t *testing.T) {
	t.Parallel()
	var l *limit.Limiter
	l.Pause(time.Hour)
	release, err := l.Acquire(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	release()
}
