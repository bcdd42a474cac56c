package retry_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/anthropic"
	"github.com/evalgate/evalgate/internal/llm/limit"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/openai"
	"github.com/evalgate/evalgate/internal/llm/retry"
)

// sleeps records the waits the retry layer asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func newClient(t *testing.T, srv *llmtest.Server, timeout time.Duration) (*retry.Client, *sleeps) {
	t.Helper()
	vendor, err := openai.New(openai.Config{Provider: "openai", Model: "gpt-4o-mini", BaseURL: srv.URL + "/v1", APIKey: "k", Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	s := &sleeps{}
	return &retry.Client{Next: vendor, Policy: retry.DefaultPolicy, Provider: "openai", Model: "gpt-4o-mini",
		Sleep: s.sleep, Rand: func() float64 { return 0.5 }}, s // no jitter
}

func req() *llm.Request {
	return &llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		faults     []llmtest.Fault
		timeout    time.Duration
		wantCalls  int
		wantSleeps []time.Duration
		wantStatus int // 0 = success
		wantErr    string
	}{
		{name: "429 honours Retry-After seconds", faults: []llmtest.Fault{{Status: 429, RetryAfter: "7"}},
			wantCalls: 2, wantSleeps: []time.Duration{7 * time.Second}},
		{name: "retry-after-ms wins", faults: []llmtest.Fault{{Status: 429, RetryAfter: "9", RetryAfterMS: "250"}},
			wantCalls: 2, wantSleeps: []time.Duration{250 * time.Millisecond}},
		{name: "5xx back off exponentially", faults: []llmtest.Fault{{Status: 500}, {Status: 502}, {Status: 503}},
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "408 and 409 retry", faults: []llmtest.Fault{{Status: 408}, {Status: 409}},
			wantCalls: 3, wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
		{name: "dropped connection", faults: []llmtest.Fault{{Drop: true}},
			wantCalls: 2, wantSleeps: []time.Duration{time.Second}},
		{name: "truncated body", faults: []llmtest.Fault{{Truncate: true}},
			wantCalls: 2, wantSleeps: []time.Duration{time.Second}},
		{name: "slow body hits the attempt timeout", faults: []llmtest.Fault{{SlowBody: 5 * time.Second}}, timeout: 300 * time.Millisecond,
			wantCalls: 2, wantSleeps: []time.Duration{time.Second}},
		{name: "400 never retried", faults: []llmtest.Fault{{Status: 400}}, wantCalls: 1, wantStatus: 400},
		{name: "401 never retried", faults: []llmtest.Fault{{Status: 401}}, wantCalls: 1, wantStatus: 401},
		{name: "403 never retried", faults: []llmtest.Fault{{Status: 403}}, wantCalls: 1, wantStatus: 403},
		{name: "404 never retried", faults: []llmtest.Fault{{Status: 404}}, wantCalls: 1, wantStatus: 404},
		{name: "retries run out", faults: []llmtest.Fault{{Status: 503}, {Status: 503}, {Status: 503}, {Status: 503}},
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, wantStatus: 503,
			wantErr: "openai gpt-4o-mini: HTTP 503 after 4 attempt(s)"},
		{name: "Retry-After beyond the cap gives up", faults: []llmtest.Fault{{Status: 429, RetryAfter: "3600"}}, wantCalls: 1, wantStatus: 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.New(t)
			srv.Inject(tt.faults...)
			c, s := newClient(t, srv, tt.timeout)
			resp, err := c.Complete(t.Context(), req())
			if srv.Count() != tt.wantCalls {
				t.Errorf("calls = %d, want %d", srv.Count(), tt.wantCalls)
			}
			if len(s.d) != len(tt.wantSleeps) {
				t.Fatalf("sleeps = %v, want %v", s.d, tt.wantSleeps)
			}
			for i := range s.d {
				if s.d[i] != tt.wantSleeps[i] {
					t.Errorf("sleep %d = %s, want %s", i, s.d[i], tt.wantSleeps[i])
				}
			}
			if tt.wantStatus == 0 {
				if err != nil || resp.Text != "ok" {
					t.Fatalf("resp %+v, err %v", resp, err)
				}
				return
			}
			var se *llm.StatusError
			if !errors.As(err, &se) || se.Status != tt.wantStatus || se.Attempts != tt.wantCalls {
				t.Fatalf("err = %v, want status %d after %d attempts", err, tt.wantStatus, tt.wantCalls)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %q, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestNetworkErrorNamesEndpoint(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Faults = func(int, *llmtest.Request) *llmtest.Fault { return &llmtest.Fault{Drop: true} }
	c, _ := newClient(t, srv, 0)
	_, err := c.Complete(t.Context(), req())
	if err == nil || !strings.Contains(err.Error(), "openai gpt-4o-mini: after 4 attempt(s)") {
		t.Fatalf("err = %v", err)
	}
}

func TestAnthropicOverloadedRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Inject(llmtest.Fault{Status: 529})
	vendor, err := anthropic.New(anthropic.Config{Model: "claude-haiku-4-5", APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := &sleeps{}
	c := &retry.Client{Next: vendor, Policy: retry.DefaultPolicy, Sleep: s.sleep}
	if _, err := c.Complete(t.Context(), req()); err != nil || srv.Count() != 2 {
		t.Fatalf("err %v after %d calls", err, srv.Count())
	}
}

func TestCustomStatusCodes(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Inject(llmtest.Fault{Status: 500})
	c, _ := newClient(t, srv, 0)
	c.Policy.StatusCodes = []int{429}
	_, err := c.Complete(t.Context(), req())
	var se *llm.StatusError
	if !errors.As(err, &se) || se.Status != 500 || srv.Count() != 1 {
		t.Fatalf("err %v after %d calls: 500 is not in retry_status_codes", err, srv.Count())
	}
}

// TestRetryAfterIsWaited uses the real clock: the second attempt must not come before the
// server's retry-after-ms, and the pause holds other requests to the provider too.
func TestRetryAfterIsWaited(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Inject(llmtest.Fault{Status: 429, RetryAfterMS: "300"})
	c, _ := newClient(t, srv, 0)
	c.Sleep = nil
	c.Limiter = limit.New(limit.Config{})
	start := time.Now()
	if _, err := c.Complete(t.Context(), req()); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("retried after %s, before the server's 300ms", el)
	}
	calls := srv.Calls()
	if len(calls) != 2 {
		t.Fatalf("calls = %d", len(calls))
	}
}

func TestCancelStopsRetrying(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Faults = func(int, *llmtest.Request) *llmtest.Fault { return &llmtest.Fault{Status: 503} }
	c, _ := newClient(t, srv, 0)
	ctx, cancel := context.WithCancel(t.Context())
	c.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	_, err := c.Complete(ctx, req())
	if !errors.Is(err, context.Canceled) || srv.Count() != 1 {
		t.Fatalf("err %v after %d calls", err, srv.Count())
	}
}

func TestRateLimitWaitBeyondDeadlineIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	c, s := newClient(t, srv, 0)
	c.Limiter = limit.New(limit.Config{RequestsPerMinute: 1})
	if _, err := c.Complete(t.Context(), req()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, req())
	if !errors.Is(err, context.DeadlineExceeded) || len(s.d) != 0 || srv.Count() != 1 {
		t.Fatalf("err %v, sleeps %v, calls %d: a limiter wait past the deadline must fail at once", err, s.d, srv.Count())
	}
}
