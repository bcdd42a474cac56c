package backoff

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"
)

var errFlaky = errors.New("503 Service Unavailable")

// script answers attempt n with steps[n-1]; past the end the attempt succeeds.
func script(t *testing.T, steps ...Step) (func(n int) (Step, error), *int) {
	calls := 0
	return func(n int) (Step, error) {
		calls++
		if n != calls {
			t.Errorf("attempt %d numbered %d", calls, n)
		}
		if n > len(steps) {
			return Step{}, nil
		}
		return steps[n-1], errFlaky
	}, &calls
}

func TestDo(t *testing.T) {
	t.Parallel()
	retry := Step{Retry: true}
	base := Policy{MaxAttempts: 4, Base: time.Second, Factor: 2}
	// The context's deadline is on the real clock; the policy's frozen clock starts there too.
	now := time.Now()
	tests := []struct {
		name       string
		policy     Policy
		steps      []Step
		deadline   time.Duration // from now; 0 = none
		wantCalls  int
		wantSleeps []time.Duration
		wantErr    error
		wantWait   *waitError // the *WaitError expected, Err aside
	}{
		{name: "first try", policy: base, wantCalls: 1},
		{name: "backoff doubles", policy: base, steps: []Step{retry, retry, retry},
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "no retry stops at once", policy: base, steps: []Step{{}}, wantCalls: 1, wantErr: errFlaky},
		{name: "attempts run out", policy: base, steps: []Step{retry, retry, retry, retry, retry},
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, wantErr: errFlaky},
		{name: "zero policy tries once", steps: []Step{retry}, wantCalls: 1, wantErr: errFlaky},
		{name: "server wait is taken as is and counts as an attempt", policy: base, steps: []Step{{Retry: true, Wait: 7 * time.Second}, retry},
			wantCalls: 3, wantSleeps: []time.Duration{7 * time.Second, 2 * time.Second}},
		{name: "cap", policy: Policy{MaxAttempts: 4, Base: time.Second, Factor: 10, Max: 5 * time.Second}, steps: []Step{retry, retry, retry},
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, 5 * time.Second, 5 * time.Second}},
		{name: "wait over MaxWait fails without sleeping", policy: Policy{MaxAttempts: 4, Base: time.Second, MaxWait: time.Minute},
			steps: []Step{{Retry: true, Wait: time.Hour}}, wantCalls: 1, wantWait: &waitError{Wait: time.Hour, MaxWait: time.Minute}},
		{name: "wait past the deadline fails without sleeping", policy: Policy{MaxAttempts: 4, Base: time.Second, StopAtDeadline: true},
			steps: []Step{{Retry: true, Wait: time.Minute}}, deadline: 10 * time.Second, wantCalls: 1, wantWait: &waitError{Wait: time.Minute}},
		{name: "a wait within the deadline sleeps", policy: Policy{MaxAttempts: 4, Base: time.Second, StopAtDeadline: true},
			steps: []Step{retry}, deadline: 10 * time.Second, wantCalls: 2, wantSleeps: []time.Duration{time.Second}},
		{name: "without StopAtDeadline the deadline is not consulted", policy: base,
			steps: []Step{{Retry: true, Wait: time.Minute}}, deadline: 10 * time.Second, wantCalls: 2, wantSleeps: []time.Duration{time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var slept []time.Duration
			p := tt.policy
			p.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
			p.Now = func() time.Time { return now }
			ctx := t.Context()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			attempt, calls := script(t, tt.steps...)
			err := Do(ctx, p, attempt)
			if *calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", *calls, tt.wantCalls)
			}
			if !slices.Equal(slept, tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", slept, tt.wantSleeps)
			}
			if tt.wantWait != nil {
				var we *waitError
				if !errors.As(err, &we) || we.Wait != tt.wantWait.Wait || we.MaxWait != tt.wantWait.MaxWait || !errors.Is(err, errFlaky) {
					t.Fatalf("err = %v, want a WaitError %+v wrapping the attempt's error", err, tt.wantWait)
				}
				return
			}
			if err != tt.wantErr { //nolint:errorlint // Do returns the attempt's error as is, not wrapped
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestWaitErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *waitError
		want string
	}{
		{&waitError{Wait: time.Hour + 400*time.Millisecond, MaxWait: 5 * time.Minute, Err: errFlaky},
			"rate limited for 1h0m0s (longer than the 5m0s evalgate waits): 503 Service Unavailable"},
		{&waitError{Wait: time.Minute, Err: errFlaky}, "retry in 1m0s would pass the deadline: 503 Service Unavailable"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestDoStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	t.Run("during the wait", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		calls := 0
		// The real Sleep: an hour's backoff must end as soon as ctx does.
		p := Policy{MaxAttempts: 3, Base: time.Hour}
		err := Do(ctx, p, func(int) (Step, error) {
			calls++
			time.AfterFunc(10*time.Millisecond, cancel)
			return Step{Retry: true}, errFlaky
		})
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Fatalf("err %v after %d calls, want context.Canceled after 1", err, calls)
		}
	})
	t.Run("during the attempt", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		p := Policy{MaxAttempts: 3, Base: time.Second, Sleep: func(context.Context, time.Duration) error {
			t.Error("slept after the context ended")
			return nil
		}}
		err := Do(ctx, p, func(int) (Step, error) {
			cancel()
			return Step{Retry: true}, errFlaky
		})
		if err != context.Canceled { //nolint:errorlint // ctx's own error, not wrapped
			t.Fatalf("err = %v, want ctx's own error", err)
		}
	})
}

func TestDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy Policy
		rand   float64
		want   []time.Duration // Delay(1), Delay(2), …
	}{
		{"exponential", Policy{Base: time.Second, Factor: 2}, 0, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"factor below 1 is constant", Policy{Base: time.Second, Factor: 0.5}, 0, []time.Duration{time.Second, time.Second}},
		{"capped", Policy{Base: time.Second, Factor: 3, Max: 5 * time.Second}, 0, []time.Duration{time.Second, 3 * time.Second, 5 * time.Second}},
		{"jitter low end", Policy{Base: time.Second, Factor: 2, Jitter: 0.25}, 0, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}},
		{"jitter middle is exact", Policy{Base: time.Second, Factor: 2, Jitter: 0.25}, 0.5, []time.Duration{time.Second, 2 * time.Second}},
		{"jitter applies after the cap", Policy{Base: 4 * time.Second, Factor: 2, Max: 4 * time.Second, Jitter: 0.5}, 0.75, []time.Duration{5 * time.Second, 5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.policy
			p.Rand = func() float64 { return tt.rand }
			for i, want := range tt.want {
				if got := p.delay(i + 1); got != want {
					t.Errorf("Delay(%d) = %s, want %s", i+1, got, want)
				}
			}
		})
	}
}

func TestDelayJitterStaysInRange(t *testing.T) {
	t.Parallel()
	p := Policy{Base: time.Second, Factor: 1, Jitter: 0.25} // the default math/rand/v2 source
	for range 200 {
		if d := p.delay(1); d < 750*time.Millisecond || d >= 1250*time.Millisecond {
			t.Fatalf("Delay = %s, outside [750ms, 1.25s)", d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"7", 7 * time.Second},
		{" 7 ", 7 * time.Second},
		{"0.25", 250 * time.Millisecond},
		{"0", 0},
		{"-3", 0},
		{"NaN", 0},
		{"", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"Thursday, 01-Jan-26 12:00:30 GMT", 30 * time.Second}, // RFC 850, which HTTP still accepts
		{"1e30", math.MaxInt64},
	}
	for _, tt := range tests {
		if got := ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSleep(t *testing.T) {
	t.Parallel()
	if err := Sleep(t.Context(), time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on an ended context = %v, want context.Canceled", err)
	}
}

func TestDelayNeverWraps(t *testing.T) {
	t.Parallel()
	p := Policy{Base: time.Second, Factor: 2}
	for n := 1; n <= 200; n++ {
		if d := p.delay(n); d <= 0 {
			t.Fatalf("Delay(%d) = %v: an uncapped backoff wrapped to a non-positive wait", n, d)
		}
	}
}
