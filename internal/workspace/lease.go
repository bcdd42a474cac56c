package workspace

import (
	"context"
	"sync"
)

// Lease is one test's hold on a workspace, from Manager.Acquire until Close. It has the shape
// of engine.Workspace.
type Lease struct {
	m  *Manager
	w  *Workspace
	in HookInput
	// ctx is Acquire's context without its cancellation: after_each is teardown and must run
	// even when the test timed out; the hook's own timeout bounds it.
	ctx context.Context
	// stop ends what before_each left running.
	stop func()

	once sync.Once
	kept string
	err  error
}

func newLease(ctx context.Context, m *Manager, w *Workspace, in HookInput, stop func()) *Lease {
	return &Lease{m: m, w: w, in: in, ctx: context.WithoutCancel(ctx), stop: stop}
}

// Dir is the workspace directory.
func (l *Lease) Dir() string { return l.w.Dir() }

// Diff is what changed since the test's baseline, as a unified diff ("" = nothing).
func (l *Lease) Diff(ctx context.Context) (string, error) { return l.w.Diff(ctx) }

// Close runs after_each (a failure is only logged), ends what before_each left running, and
// gives the workspace back: a per_test
// workspace is removed unless keep; a shared one is released to the next test, and keep makes
// Manager.Close leave it in place. It returns the kept path; calls after the first are no-ops.
func (l *Lease) Close(keep bool) (string, error) {
	l.once.Do(func() { l.kept, l.err = l.close(keep) })
	return l.kept, l.err
}

func (l *Lease) close(keep bool) (string, error) {
	if h := l.m.spec.Hooks.AfterEach; h != nil {
		if _, err := RunHook(l.ctx, AfterEach, h, l.in, l.w.Dir()); err != nil {
			l.m.warn(err)
		}
	}
	l.stop()
	if !l.m.Shared() {
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
