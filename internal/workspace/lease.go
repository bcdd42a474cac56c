package workspace

import (
	"context"
	"fmt"
	"sync"
)

// Lease is one test's hold on a workspace, from Manager.Acquire until Close. It has the shape
// of engine.Workspace.
type Lease struct {
	m  *Manager
	w  *Workspace
	in hookInput
	// ctx is Acquire's context without its cancellation: after_each is teardown and must run
	// even when the test timed out; the hook's own timeout bounds it.
	ctx context.Context
	// stop ends what before_each left running.
	stop func()
	// base is the test's baseline: what an after_each reset returns to.
	base snapshot

	once sync.Once
	kept string
	err  error
}

func newLease(ctx context.Context, m *Manager, w *Workspace, in hookInput, stop func()) *Lease {
	return &Lease{m: m, w: w, in: in, ctx: context.WithoutCancel(ctx), stop: stop, base: w.current()}
}

// Dir is the workspace directory.
func (l *Lease) Dir() string { return l.w.Dir() }

// Diff is what changed since the test's baseline, as a unified diff ("" = nothing).
func (l *Lease) Diff(ctx context.Context) (string, error) { return l.w.Diff(ctx) }

// Close runs after_each — its reset, then its command; a failure of either is only logged —,
// ends what before_each left running, and gives the workspace back: a per_test workspace is
// removed unless keep; a shared one is released to the next test, and keep makes
// Manager.Close leave it in place. It returns the kept path; calls after the first are no-ops.
func (l *Lease) Close(keep bool) (string, error) {
	l.once.Do(func() { l.kept, l.err = l.close(keep) })
	return l.kept, l.err
}

func (l *Lease) close(keep bool) (string, error) {
	if h := l.m.hook(afterEach); h != nil {
		command := len(h.Command) > 0
		// A per_test workspace is not used again: reset it only for a command to see.
		if reset, strict := resets(h); reset && (l.m.isShared() || command) {
			if err := l.m.reset(l.ctx, l.w, l.base, strict); err != nil {
				l.m.warn(fmt.Errorf("%s: reset: %w", hookName(afterEach, h), err))
			}
		}
		if command {
			if _, err := runHook(l.ctx, afterEach, h, l.in, l.w.Dir(), l.m.opts.User); err != nil {
				l.m.warn(err)
			}
		}
	}
	l.stop()
	if !l.m.isShared() {
		return l.w.Close(keep)
	}
	defer l.m.unlock()
	if !keep {
		return "", nil
	}
	l.m.mu.Lock()
	l.m.keep = true
	l.m.mu.Unlock()
	return l.w.Dir(), nil
}
