// Package retry makes an llm.Client survive a flaky vendor: it asks again on network errors
// and on retryable statuses (408, 409, 429, 5xx by default) with exponential backoff and
// jitter, honours the server's Retry-After, and never retries a request the server rejected
// as wrong (400, 401, 403, 404, 422). An endpoint that refuses connections or does not resolve
// is asked once more, then reported as an llm.UnreachableError. Every attempt passes the
// provider's shared limiter.
package retry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/evalgate/evalgate/internal/backoff"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/limit"
)

// Policy is AgentV's retry configuration (max_retries, retry_initial_delay_ms,
// retry_max_delay_ms, retry_backoff_factor, retry_status_codes).
type Policy struct {
	// MaxRetries is how many times to ask again after the first attempt.
	MaxRetries int
	Initial    time.Duration
	Max        time.Duration
	Factor     float64
	// StatusCodes are the retryable HTTP statuses; nil means 408, 409, 429 and every 5xx.
	StatusCodes []int
	// MaxRetryAfter bounds how long a server may ask us to wait; a longer Retry-After ends
	// the retries with the server's error instead of stalling the run.
	MaxRetryAfter time.Duration
}

// DefaultPolicy is AgentV's: 3 retries from 1 s doubling to 60 s.
var DefaultPolicy = Policy{
	MaxRetries:    3,
	Initial:       time.Second,
	Max:           time.Minute,
	Factor:        2,
	MaxRetryAfter: 5 * time.Minute,
}

// unreachableAttempts and unreachableWait bound what an endpoint that refuses connections
// (or whose name does not resolve) costs: one quick second try covers a server that is just
// starting, and nothing longer helps.
const (
	unreachableAttempts = 2
	unreachableWait     = 250 * time.Millisecond
)

// neverRetry are statuses that mean the request itself is wrong; asking again only costs.
var neverRetry = []int{400, 401, 403, 404, 422}

// Client wraps a vendor client with retries and admission control.
type Client struct {
	Next    llm.Client
	Policy  Policy
	Limiter *limit.Limiter
	// Provider and Model name the endpoint in errors.
	Provider, Model string
	// Sleep waits d or until ctx ends; nil uses a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand draws the backoff's jitter (×[0.75, 1.25)), uniform in [0, 1); nil uses
	// math/rand/v2. Tests fix it.
	Rand func() float64
}

// jitter spreads each backoff by up to a quarter either way.
const jitter = 0.25

var _ llm.Client = (*Client)(nil)

// Complete sends req, retrying as the policy allows.
func (c *Client) Complete(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	attempts := c.Policy.MaxRetries + 1
	p := backoff.Policy{MaxAttempts: attempts, Base: c.Policy.Initial, Max: c.Policy.Max, Factor: c.Policy.Factor,
		Jitter: jitter, Rand: c.Rand, Sleep: c.Sleep}
	var resp *llm.Response
	err := backoff.Do(ctx, p, func(attempt int) (backoff.Step, error) {
		var err error
		resp, err = c.once(ctx, req)
		if err == nil || ctx.Err() != nil {
			return backoff.Step{}, err
		}
		if host, reason, ok := llm.Unreachable(err); ok {
			if attempt >= min(attempts, unreachableAttempts) {
				return backoff.Step{}, &llm.UnreachableError{Provider: c.Provider, Model: c.Model, Host: host, Reason: reason, Attempts: attempt, Err: err}
			}
			return backoff.Step{Retry: true, Wait: unreachableWait}, err
		}
		wait, ok := c.retryable(err)
		if !ok || attempt == attempts {
			return backoff.Step{}, c.final(err, attempt)
		}
		return backoff.Step{Retry: true, Wait: wait}, err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

func (c *Client) once(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	release, err := c.Limiter.Acquire(ctx, estimate(req))
	if err != nil {
		// The limiter fails only when the caller's deadline cannot be met: asking again
		// cannot help.
		return nil, fmt.Errorf("wait for the rate limit: %w", errors.Join(err, llm.ErrPermanent))
	}
	defer release()
	return c.Next.Complete(ctx, req)
}

// retryable says whether err deserves another attempt and how long to wait first (0: the
// policy's backoff).
func (c *Client) retryable(err error) (time.Duration, bool) {
	var se *llm.StatusError
	if !errors.As(err, &se) {
		if errors.Is(err, llm.ErrPermanent) || errors.Is(err, context.Canceled) {
			return 0, false
		}
		return 0, true
	}
	if slices.Contains(neverRetry, se.Status) || !c.retryableStatus(se.Status) {
		return 0, false
	}
	if se.RetryAfter > 0 {
		if c.Policy.MaxRetryAfter > 0 && se.RetryAfter > c.Policy.MaxRetryAfter {
			return 0, false
		}
		// The vendor's wait applies to everyone using this key, so hold the whole provider.
		c.Limiter.Pause(se.RetryAfter)
		return se.RetryAfter, true
	}
	return 0, true
}

func (c *Client) retryableStatus(status int) bool {
	if c.Policy.StatusCodes != nil {
		return slices.Contains(c.Policy.StatusCodes, status)
	}
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// final names the provider, model and attempt count on the error that ended the retries.
func (c *Client) final(err error, attempts int) error {
	var se *llm.StatusError
	if errors.As(err, &se) {
		cp := *se
		cp.Attempts = attempts
		if cp.Provider == "" {
			cp.Provider = c.Provider
		}
		if cp.Model == "" {
			cp.Model = c.Model
		}
		return &cp
	}
	return fmt.Errorf("%s %s: after %d attempt(s): %w", c.Provider, c.Model, attempts, err)
}

// estimate guesses a request's token cost for the tokens-per-minute limit: about four bytes
// a token for the prompt, plus the reply cap (or 512 when uncapped).
func estimate(req *llm.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	out := req.MaxOutputTokens
	if out <= 0 {
		out = 512
	}
	return n/4 + out
}
