// Package limit is the shared admission control for one provider: at most N requests in
// flight, requests and tokens per minute, and a provider-wide pause when the vendor says
// "slow down". Every test that grades with the same provider shares one Limiter, so a large
// suite queues instead of failing with 429s.
package limit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Config sets a limiter's bounds; a zero field means unlimited.
type Config struct {
	// MaxInFlight caps concurrent requests.
	MaxInFlight int
	// RequestsPerMinute caps the request rate, with a burst of one minute's worth.
	RequestsPerMinute int
	// TokensPerMinute caps estimated tokens (prompt plus expected reply) per minute.
	TokensPerMinute int
}

// Limiter admits requests to one provider. The zero value is not usable; use New. A nil
// *Limiter admits everything.
type Limiter struct {
	slots chan struct{}
	rpm   *rate.Limiter
	tpm   *rate.Limiter
	tpmN  int

	mu    sync.Mutex
	until time.Time
	now   func() time.Time
}

// New builds a limiter.
func New(c Config) *Limiter {
	l := &Limiter{now: time.Now}
	if c.MaxInFlight > 0 {
		l.slots = make(chan struct{}, c.MaxInFlight)
	}
	if c.RequestsPerMinute > 0 {
		l.rpm = rate.NewLimiter(rate.Limit(float64(c.RequestsPerMinute)/60), c.RequestsPerMinute)
	}
	if c.TokensPerMinute > 0 {
		l.tpmN = c.TokensPerMinute
		l.tpm = rate.NewLimiter(rate.Limit(float64(c.TokensPerMinute)/60), c.TokensPerMinute)
	}
	return l
}

// Acquire waits until a request estimated at tokens may be sent, and returns the function
// that releases its in-flight slot. It fails only when ctx ends first.
func (l *Limiter) Acquire(ctx context.Context, tokens int) (release func(), err error) {
	if l == nil {
		return func() {}, nil
	}
	if err := l.waitPause(ctx); err != nil {
		return nil, err
	}
	if l.rpm != nil {
		if err := l.rpm.Wait(ctx); err != nil {
			return nil, ctxErr(ctx, err)
		}
	}
	if l.tpm != nil && tokens > 0 {
		// A request bigger than a minute's budget could never be admitted; let it through
		// alone once the bucket is full rather than failing it.
		if err := l.tpm.WaitN(ctx, min(tokens, l.tpmN)); err != nil {
			return nil, ctxErr(ctx, err)
		}
	}
	if l.slots == nil {
		return func() {}, nil
	}
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-l.slots }) }, nil
}

// Pause holds every new request to this provider for d: a 429's Retry-After applies to the
// whole account, not just the request that drew it.
func (l *Limiter) Pause(d time.Duration) {
	if l == nil || d <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.now().Add(d); t.After(l.until) {
		l.until = t
	}
}

func (l *Limiter) waitPause(ctx context.Context) error {
	for {
		l.mu.Lock()
		wait := l.until.Sub(l.now())
		l.mu.Unlock()
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// ctxErr prefers the context's error: rate.Wait reports "would exceed context deadline"
// before the deadline passes, which callers should see as the deadline.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if _, ok := ctx.Deadline(); ok {
		return context.DeadlineExceeded
	}
	return err
}
