// Package github is evalgate's GitHub REST layer on go-github v60: the sticky PR comment, the
// check run with batched annotations, pull request files, collaborator permission,
// reactions and workflow artifacts (the baseline). Writes are serialised and spaced, and rate limits (403 and 429) are honoured.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/evalgate/evalgate/internal/backoff"
)

// defaultBotLogin is the account GITHUB_TOKEN writes as. Installation tokens cannot call
// GET /user, so the login is configured rather than discovered.
const defaultBotLogin = "github-actions[bot]"

// Options tune a Client; zero values take the defaults.
type Options struct {
	// BotLogin is the account whose comments evalgate may edit (default github-actions[bot]).
	BotLogin string
	// WriteSpacing is the minimum time between two mutating calls (default 1 s): GitHub's
	// secondary limits punish bursts of content-creating requests.
	WriteSpacing time.Duration
	// MaxAttempts bounds tries of one call (default 5).
	MaxAttempts int
	// MaxWait bounds one wait for a rate limit to reset (default 5 min); longer waits fail.
	MaxWait time.Duration
	// Sleep waits for d or until ctx is done (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Scrub removes credentials from every text evalgate sends: comment bodies, check run
	// titles, summaries, texts and annotations (nil = none). It is the last line of defence:
	// whatever path a credential took into a report, it does not reach GitHub.
	Scrub func(string) string
}

// Client talks to one GitHub (or GHES) API; Repo scopes it to a repository, where the calls are.
type Client struct {
	gh   *gh.Client
	opts Options
	// policy is the retry policy every call runs under.
	policy backoff.Policy
	// plain is the HTTP client without the token, for hosts that are not the API.
	plain *http.Client

	writeMu   sync.Mutex
	lastWrite time.Time
}

// New returns a client for apiURL (GITHUB_API_URL; GHES URLs end in /api/v3) with a token.
func New(httpClient *http.Client, apiURL, token string, opts Options) (*Client, error) {
	plain := httpClient
	if plain == nil {
		plain = &http.Client{Timeout: time.Minute}
	}
	c := gh.NewClient(httpClient)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	if apiURL != "" {
		u, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("GitHub API URL %q: %w", apiURL, err)
		}
		c.BaseURL = u
	}
	if opts.BotLogin == "" {
		opts.BotLogin = defaultBotLogin
	}
	if opts.WriteSpacing == 0 {
		opts.WriteSpacing = time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 5
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 5 * time.Minute
	}
	if opts.Sleep == nil {
		opts.Sleep = backoff.Sleep
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	// Backoff from 1 s, doubling, without jitter: one job's few writes do not stampede. A
	// caller with a deadline (the final writes of a cancelled run) gets the error at once
	// rather than after a wait that would outlast it.
	policy := backoff.Policy{MaxAttempts: opts.MaxAttempts, Base: time.Second, Factor: 2, MaxWait: opts.MaxWait,
		StopAtDeadline: true, Sleep: opts.Sleep, Now: opts.Now}
	return &Client{gh: c, opts: opts, policy: policy, plain: plain}, nil
}

// Repo is the client scoped to one repository: every call about a pull request, check run,
// comment or artifact goes through it. It is a cheap value; make one wherever convenient.
type Repo struct {
	c           *Client
	owner, name string
}

// Repo returns the client scoped to the repository owner/name.
func (c *Client) Repo(owner, name string) *Repo {
	return &Repo{c: c, owner: owner, name: name}
}

// Errors callers act on.
var (
	// ErrForbidden is a 403 that is not a rate limit: a read-only token (fork PRs) or missing
	// permissions. Callers fall back to the job summary.
	ErrForbidden = errors.New("GitHub refused the write (403): the token is read-only or lacks a permission")
	// ErrBodyTooLong is GitHub's 422 for an oversized comment or check-run text; callers retry
	// with a shorter body.
	ErrBodyTooLong = errors.New("GitHub rejected the body as too long (422)")
)

// write runs a mutating call: one at a time, spaced by WriteSpacing, with retries.
func (c *Client) write(ctx context.Context, op string, call func() (*gh.Response, error)) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if wait := c.opts.WriteSpacing - c.opts.Now().Sub(c.lastWrite); !c.lastWrite.IsZero() && wait > 0 {
		if err := c.opts.Sleep(ctx, wait); err != nil {
			return err
		}
	}
	err := c.retry(ctx, op, call)
	c.lastWrite = c.opts.Now()
	return err
}

// read runs a non-mutating call with retries.
func (c *Client) read(ctx context.Context, op string, call func() (*gh.Response, error)) error {
	return c.retry(ctx, op, call)
}
