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

	"github.com/evalgate/evalgate/internal/backoff"
)

// secondaryFallback is GitHub's advice when a secondary rate limit gives no retry-after:
// "wait for at least one minute before retrying".
const secondaryFallback = time.Minute

// retry runs call under the client's backoff policy until it succeeds, fails for good, or
// attempts run out. go-github v60 turns only 403s into rate-limit errors; 429 arrives as a
// plain ErrorResponse and is recognised here.
func (c *Client) retry(ctx context.Context, op string, call func() (*gh.Response, error)) error {
	err := backoff.Do(ctx, c.policy, func(int) (backoff.Step, error) {
		resp, err := call()
		if err == nil {
			return backoff.Step{}, nil
		}
		wait, retriable, final := c.classify(resp, err)
		if final != nil {
			return backoff.Step{}, final
		}
		return backoff.Step{Retry: retriable, Wait: wait}, err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// classify decides what to do after a failed call: retry after wait (0: the policy's
// backoff), or stop (final is the error to return when stopping with a typed error).
func (c *Client) classify(resp *gh.Response, err error) (wait time.Duration, retriable bool, final error) {
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
		return c.classifyStatus(er)
	case resp != nil && resp.StatusCode >= 500:
		return 0, true, nil
	}
	// Transport errors (reset connections, timeouts) are worth another try.
	return 0, true, nil
}

func (c *Client) classifyStatus(er *gh.ErrorResponse) (time.Duration, bool, error) {
	h := er.Response.Header
	switch code := er.Response.StatusCode; {
	case code == http.StatusTooManyRequests || (code == http.StatusForbidden && isRateLimited(h)):
		if d := backoff.ParseRetryAfter(h.Get("Retry-After"), c.opts.Now()); d > 0 {
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
		return 0, true, nil
	}
	return 0, false, nil
}

func isRateLimited(h http.Header) bool {
	return h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"
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
