// Package backoff is the one retry loop evalgate's API clients share: attempts, exponential
// backoff with jitter, a server's Retry-After, a bound on how long to wait and a sleep that
// ends with the context. Which failures deserve another attempt is the caller's business
// (internal/github, internal/llm/retry); this package only runs the loop.
package backoff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Policy says how often to try and how long to wait in between. The zero value tries once.
type Policy struct {
	// MaxAttempts bounds the tries, the first included (below 1 counts as 1).
	MaxAttempts int
	// Base is the backoff after the first failed attempt; each later one is Factor times the
	// one before (a Factor below 1 counts as 1: a constant backoff), capped at Max when set.
	Base   time.Duration
	Max    time.Duration
	Factor float64
	// Jitter spreads each backoff by up to this fraction either way (0.25: ×[0.75, 1.25)) so
	// that clients failing together do not retry together. A server's requested wait is
	// never jittered.
	Jitter float64
	// MaxWait bounds any one wait; a longer one ends the retries with a *waitError (0: no
	// bound).
	MaxWait time.Duration
	// StopAtDeadline ends the retries with a *waitError, instead of sleeping, when the wait
	// would outlast ctx's deadline: the caller gets the error while it can still act on it.
	StopAtDeadline bool

	// Rand draws the jitter, uniform in [0, 1); nil uses math/rand/v2. Tests fix it.
	Rand func() float64
	// Sleep waits d or until ctx is done; nil is Sleep. Tests record the waits instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for StopAtDeadline; nil is time.Now.
	Now func() time.Time
}

// Step is what a failed attempt asks for.
type Step struct {
	// Retry asks for another attempt; false ends the retries with the attempt's error.
	Retry bool
	// Wait is the wait the server asked for (Retry-After, a rate-limit reset); 0 waits the
	// policy's backoff.
	Wait time.Duration
}

// Do calls attempt with n = 1, 2, … until it returns a nil error, asks for no retry, or
// MaxAttempts run out, waiting between tries. It returns attempt's last error unchanged, ctx's
// error when ctx ends (during an attempt or a wait), or a *waitError wrapping the last error
// when the wait is longer than the policy allows.
func Do(ctx context.Context, p Policy, attempt func(n int) (Step, error)) error {
	attempts := max(p.MaxAttempts, 1)
	for n := 1; ; n++ {
		step, err := attempt(n)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !step.Retry || n >= attempts {
			return err
		}
		wait := step.Wait
		if wait <= 0 {
			wait = p.delay(n)
		}
		if p.MaxWait > 0 && wait > p.MaxWait {
			return &waitError{Wait: wait, MaxWait: p.MaxWait, Err: err}
		}
		if p.StopAtDeadline {
			now := time.Now
			if p.Now != nil {
				now = p.Now
			}
			if dl, ok := ctx.Deadline(); ok && now().Add(wait).After(dl) {
				return &waitError{Wait: wait, Err: err}
			}
		}
		sleep := p.Sleep
		if sleep == nil {
			sleep = Sleep
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// delay is the backoff after failed attempt n (1-based): Base·Factor^(n−1), capped at Max,
// then jittered.
func (p Policy) delay(n int) time.Duration {
	d := float64(p.Base)
	for i := 1; i < n; i++ {
		d *= max(p.Factor, 1)
	}
	if p.Max > 0 {
		d = min(d, float64(p.Max))
	}
	if p.Jitter > 0 {
		r := p.Rand
		if r == nil {
			r = rand.Float64
		}
		d *= 1 - p.Jitter + 2*p.Jitter*r()
	}
	// Without a cap, enough doublings pass what a Duration holds; converting would wrap to a
	// negative wait and turn the remaining attempts into a busy loop.
	if d >= float64(math.MaxInt64) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d)
}

// waitError ends retries whose next wait is too long: over Policy.MaxWait, or (MaxWait 0)
// past the context's deadline.
type waitError struct {
	Wait    time.Duration
	MaxWait time.Duration
	// Err is the error of the attempt that asked for the wait.
	Err error
}

func (e *waitError) Error() string {
	if e.MaxWait > 0 {
		// Only a server's rate limit asks for waits this long.
		return fmt.Sprintf("rate limited for %s (longer than the %s evalgate waits): %v", e.Wait.Round(time.Second), e.MaxWait, e.Err)
	}
	return fmt.Sprintf("retry in %s would pass the deadline: %v", e.Wait.Round(time.Second), e.Err)
}

func (e *waitError) Unwrap() error { return e.Err }

// Sleep waits d, or returns ctx's error as soon as ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
