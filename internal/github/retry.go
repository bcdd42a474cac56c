package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// secondaryFallback is GitHub's advice when a secondary rate limit gives no retry-after:
// "wait for at least one minute before retrying".
const secondaryFallback = time.Minute

// retry runs call until it succeeds, fails for good, or attempts run out. Every wait honours
// ctx. go-github v60 turns only 403s into rate-limit errors; 429 arrives as a plain
// ErrorResponse and is recognised here.
func (c *Client) retry(ctx context.Context, op string, call func() (*gh.Response, error)) error {
	backoff := time.Second
	var last error
	for attempt := 1; attempt <= c.opts.MaxAttempts; attempt++ {
		resp, err := call()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", op, ctx.Err())
		}
		wait, retriable, final := c.classify(resp, err, backoff)
		if final != nil {
			return fmt.Errorf("%s: %w", op, final)
		}
		last = err
		if !retriable || attempt == c.opts.MaxAttempts {
			break
		}
		if wait > c.opts.MaxWait {
			return fmt.Errorf("%s: rate limited for %s (longer than the %s evalgate waits): %w", op, wait.Round(time.Second), c.opts.MaxWait, err)
		}
		// A caller with a deadline (the final writes of a cancelled run) gets the error now
		// rather than after a wait that would outlast it.
		if dl, ok := ctx.Deadline(); ok && c.opts.Now().Add(wait).After(dl) {
			return fmt.Errorf("%s: retry in %s would pass the deadline: %w", op, wait.Round(time.Second), err)
		}
		if err := c.opts.Sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		backoff *= 2
	}
	return fmt.Errorf("%s: %w", op, last)
}

// classify decides what to do after a failed call: wait and retry, or stop (final is the
// error to return when stopping with a typed error).
func (c *Client) classify(resp *gh.Response, err error, backoff time.Duration) (wait time.Duration, retriable bool, final error) {
	var rle *gh.RateLimitError
	var abuse *gh.AbuseRateLimitError
	var er *gh.ErrorResponse
	var perm permanent
	switch {
	case errors.As(err, &perm):
		return 0, false, nil
	case errors.As(err, &rle):
		return c.untilReset(rle.Rate.Reset.Time), true, nil
	case errors.As(err, &abuse):
		if d := abuse.GetRetryAfter(); d > 0 {
			return d, true, nil
		}
		return secondaryFallback, true, nil
	case errors.As(err, &er) && er.Response != nil:
		return c.classifyStatus(er, backoff)
	case resp != nil && resp.StatusCode >= 500:
		return backoff, true, nil
	}
	// Transport errors (reset connections, timeouts) are worth another try.
	return backoff, true, nil
}

func (c *Client) classifyStatus(er *gh.ErrorResponse, backoff time.Duration) (time.Duration, bool, error) {
	h := er.Response.Header
	switch code := er.Response.StatusCode; {
	case code == http.StatusTooManyRequests || (code == http.StatusForbidden && isRateLimited(h)):
		if d := retryAfter(h); d > 0 {
			return d, true, nil
		}
		if h.Get("X-RateLimit-Remaining") == "0" {
			if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
				return c.untilReset(time.Unix(reset, 0)), true, nil
			}
		}
		return secondaryFallback, true, nil
	case code == http.StatusForbidden:
		return 0, false, fmt.Errorf("%w: %s", ErrForbidden, er.Message)
	case code == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(er.Error()), "too long"):
		return 0, false, fmt.Errorf("%w: %s", ErrBodyTooLong, er.Message)
	case code >= 500:
		return backoff, true, nil
	}
	return 0, false, nil
}

func isRateLimited(h http.Header) bool {
	return h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"
}

func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// untilReset is the wait until a rate-limit reset, plus a second of slack for clock skew.
func (c *Client) untilReset(reset time.Time) time.Duration {
	d := reset.Sub(c.opts.Now()) + time.Second
	if d < time.Second {
		d = time.Second
	}
	return d
}

// permanent marks an error no retry can cure (a 4xx from a host that is not the API, an
// oversized download).
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }
