package cli

import (
	"github.com/evalgate/evalgate/internal/proc"

	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// healthcheck is AgentV's cli healthcheck: a command that must exit 0, or a URL that must
// answer a GET with 2xx, checked once before the target's first test.
type healthcheck struct {
	command string
	url     string
	cwd     string // for the command; "" = the target's cwd
	timeout time.Duration

	// mu is held while the check runs, so tests starting together wait for one check.
	mu   sync.Mutex
	done bool
	err  error
}

// parseHealthcheck reads the healthcheck setting: a command string, or a mapping with url or
// command (AgentV's older command_template too), timeout_seconds and cwd. Without
// timeout_seconds the check gets the target's timeout, as in AgentV.
func parseHealthcheck(v any, dir string, timeout time.Duration) (*healthcheck, error) {
	h := &healthcheck{timeout: timeout}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		h.command = v
	case map[string]any:
		h.url, _ = v["url"].(string)
		h.command, _ = v["command"].(string)
		if h.command == "" {
			h.command, _ = v["command_template"].(string)
		}
		if s, ok := number(v["timeout_seconds"]); ok && s > 0 {
			h.timeout = time.Duration(s * float64(time.Second))
		}
		if c, _ := v["cwd"].(string); c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(dir, c)
			}
			h.cwd = c
		}
	default:
		return nil, fmt.Errorf("healthcheck must be a command or a mapping with url or command, not %T", v)
	}
	h.command = strings.TrimSpace(h.command)
	switch {
	case h.url != "" && h.command != "":
		return nil, errors.New("healthcheck has both url and command; use one")
	case h.url != "":
		u, err := url.Parse(h.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("healthcheck url %q is not an http(s) URL", h.url)
		}
	case h.command == "":
		return nil, errors.New("healthcheck needs a url or a command")
	}
	return h, nil
}

// check runs the healthcheck the first time and returns its cached outcome after that. A
// check cut short because the caller's ctx ended is not cached: it says nothing about the
// agent, and the next test runs it again. A nil healthcheck always passes.
func (h *healthcheck) check(ctx context.Context, t *Target, user *proc.User) error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return h.err
	}
	var err error
	if h.url != "" {
		err = h.get(ctx)
	} else {
		cwd := h.cwd
		if cwd == "" {
			cwd = t.cwd
		}
		_, err = t.exec(ctx, h.command, cwd, h.timeout, user)
	}
	if err != nil {
		err = fmt.Errorf("healthcheck failed: %w", err)
		if ctx.Err() != nil {
			return err
		}
	}
	h.done, h.err = true, err
	return err
}

// get requests the URL and wants a 2xx status.
func (h *healthcheck) get(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("GET %s timed out after %s", h.url, h.timeout)
		}
		return err // already names the method and URL
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("GET %s: %s", h.url, resp.Status)
	}
	return nil
}
