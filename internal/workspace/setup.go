package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// setup runs the one-time setup exactly once: the first caller does it, with its ctx; later
// callers wait for it (or for their own ctx) and get its error.
func (m *Manager) setup(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errClosed
	}
	ready, first := m.ready, m.ready == nil
	if first {
		m.ready = make(chan struct{})
		ready = m.ready
	}
	m.mu.Unlock()
	if first {
		m.setupErr = m.runSetup(ctx)
		close(ready)
		return m.setupErr
	}
	select {
	case <-ready:
		return m.setupErr
	case <-ctx.Done():
		return fmt.Errorf("workspace: waiting for setup: %w", ctx.Err())
	}
}

// runSetup checks workspace.env, creates the shared workspace or the per_test base (template
// and repos), runs before_all in it, and keeps what resets of a shared workspace return to.
func (m *Manager) runSetup(ctx context.Context) error {
	if err := checkEnv(ctx, m.spec.Env, m.opts.User); err != nil {
		return err
	}
	if len(m.spec.Repos) > 0 {
		home, err := os.MkdirTemp(m.opts.Parent, "evalgate-repos-")
		if err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		m.home = home
	}
	before, after := m.hook(beforeAll), m.hook(afterAll)
	var dir string
	switch {
	case m.static():
		w, err := m.openStatic(ctx)
		if err != nil {
			return err
		}
		m.shared, dir = w, w.Dir()
	case m.isShared():
		w, err := create(ctx, m.opts.Parent, m.opts.User, func(dir string) error { return m.fill(ctx, dir) })
		if err != nil {
			return err
		}
		m.shared, dir = w, w.Dir()
	case before != nil || after != nil || len(m.spec.Repos) > 0:
		// The base needs no git baseline: it is only ever copied.
		var err error
		if dir, err = os.MkdirTemp(m.opts.Parent, "evalgate-base-"); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		m.base = dir
		if err := m.fill(ctx, dir); err != nil {
			return err
		}
		if err := m.opts.User.Own(dir); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
	default:
		return nil
	}
	if before != nil && len(before.Command) > 0 {
		stop, err := runHook(ctx, beforeAll, before, hookInput{WorkspacePath: dir, EvalRunID: m.opts.RunID}, dir, m.opts.User)
		m.stopSetup = stop
		if err != nil {
			return err
		}
	}
	if m.shared != nil {
		return m.keepOrigin(ctx)
	}
	return nil
}

// fill puts the template and the repos into dir.
func (m *Manager) fill(ctx context.Context, dir string) error {
	if m.spec.Template != "" {
		if err := copyTree(m.spec.Template, dir, false); err != nil {
			return fmt.Errorf("workspace: copy %s: %w", m.spec.Template, err)
		}
	}
	for _, r := range m.spec.Repos {
		if err := cloneRepo(ctx, m.home, dir, r); err != nil {
			return err
		}
	}
	return nil
}

// openStatic prepares workspace.path as AgentV does: a missing or empty directory gets the
// template and the repos; an existing one is used as it is, with only missing repos cloned.
func (m *Manager) openStatic(ctx context.Context) (*Workspace, error) {
	dir := m.spec.Path
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
	case err != nil:
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if len(entries) == 0 {
		if err := m.fill(ctx, dir); err != nil {
			return nil, err
		}
	} else {
		for _, r := range m.spec.Repos {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(r.Path))); err == nil {
				continue
			}
			if err := cloneRepo(ctx, m.home, dir, r); err != nil {
				return nil, err
			}
		}
	}
	return open(ctx, m.opts.Parent, dir)
}

// keepOrigin records, when a reset may need them, the shared workspace as setup left it and a
// copy of each repo's .git.
func (m *Manager) keepOrigin(ctx context.Context) error {
	before, _ := resets(m.hook(beforeEach))
	after, _ := resets(m.hook(afterEach))
	if !before && !after {
		return nil
	}
	if err := m.shared.baseline(ctx); err != nil {
		return err
	}
	m.origin = m.shared.current()
	for i, r := range m.spec.Repos {
		src := filepath.Join(m.shared.Dir(), filepath.FromSlash(r.Path), ".git")
		if fi, err := os.Lstat(src); err != nil || !fi.IsDir() {
			continue // a reused static workspace's directory that is not a repository
		}
		if err := copyTree(src, m.clonedGit(i), true); err != nil {
			return fmt.Errorf("workspace: keep repo %s: %w", r.Path, err)
		}
	}
	return nil
}
