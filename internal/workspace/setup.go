package workspace

import (
	"context"
	"fmt"
	"os"
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

// runSetup creates the shared workspace or the per_test base, and runs before_all in it.
func (m *Manager) runSetup(ctx context.Context) error {
	hooks := m.spec.Hooks
	m.template = m.spec.Template
	var dir string
	switch {
	case m.Shared():
		w, err := Prepare(ctx, m.opts.Parent, m.spec.Template)
		if err != nil {
			return err
		}
		m.shared, dir = w, w.Dir()
	case hooks.BeforeAll != nil || hooks.AfterAll != nil:
		// The base needs no git baseline: it is only ever copied, and copies skip .git.
		var err error
		if dir, err = os.MkdirTemp(m.opts.Parent, "evalgate-base-"); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
		m.base = dir
		if m.spec.Template != "" {
			if err := copyTree(m.spec.Template, dir); err != nil {
				return fmt.Errorf("workspace: copy %s: %w", m.spec.Template, err)
			}
		}
		m.template = dir
	default:
		return nil
	}
	if h := hooks.BeforeAll; h != nil {
		stop, err := RunHook(ctx, BeforeAll, h, HookInput{WorkspacePath: dir, EvalRunID: m.opts.RunID}, dir)
		m.stopSetup = stop
		return err
	}
	return nil
}
