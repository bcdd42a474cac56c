package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/suite"
)

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	// Parent is where workspaces are created ("" = the system temp dir).
	Parent string
	// RunID is the eval_run_id hooks receive.
	RunID string
	// Log receives after_* hook failures as warnings; nil discards them.
	Log io.Writer
	// User is who hooks and env checks run as and who owns the workspaces evalgate copies
	// (nil = evalgate's own user). A static workspace (workspace.path) stays its owner's.
	User *proc.User
}

// Manager runs one workspace spec (usually a suite's) for many tests, concurrently.
//
// Setup happens once, on the first Acquire; concurrent callers wait for it and share its error.
// It checks workspace.env first, then:
//   - shared isolation: the template is copied and the repos cloned once, before_all runs in
//     that copy, and every test runs in it, one test at a time. A static workspace (a path) is
//     shared isolation in the user's directory, used in place and never removed.
//   - per_test isolation: when the spec has repos, before_all or after_all, the template is
//     copied and the repos cloned once into a base directory and before_all runs there; the
//     prepared base, not the template, is what each test's fresh workspace is copied from
//     (repositories included), so cloning and before_all's work are done once and every test
//     starts from their result. after_all runs in the same base directory.
//
// Each test then gets a Lease: before_each runs in the test's workspace, and the baseline is
// committed after it, so a test's diff is only what its agent changed. With shared isolation
// evalgate re-baselines before every test, where AgentV keeps one baseline per suite: a test is
// graded on its own changes, never on an earlier test's.
//
// A hook's reset (fast or strict) puts the workspace back before its command runs: before_each
// to the state setup left, after_each to the test's baseline; repositories also get their .git
// back as cloned, so commits and branches an agent made are gone. In per_test isolation a
// before_each reset has nothing to undo, and an after_each reset is only done when an
// after_each command follows to see it, so a kept workspace still shows what the agent did.
//
// A before_all or before_each failure (or a failed env check, clone or before_each reset) fails
// Acquire; after_each and after_all failures are only logged, as in AgentV. hooks.enabled:
// false skips every hook command and reset.
type Manager struct {
	spec *suite.Workspace
	opts ManagerOptions
	// sem is held by the one test using the shared workspace.
	sem chan struct{}

	mu     sync.Mutex
	ready  chan struct{} // closed when setup has finished; nil before the first Acquire
	closed bool
	keep   bool // a lease asked to keep the shared workspace

	// Written by setup before ready is closed, read-only after.
	setupErr error
	shared   *Workspace // shared isolation: the one workspace
	// stopSetup ends what before_all left running (a service the tests use); nil when none.
	stopSetup func()
	base      string // per_test: the copy the suite hooks run in, tests are copied from ("" = none)
	// home is evalgate's private directory for the repos: git's HOME while cloning, and the
	// cloned .git directories a shared workspace's resets restore ("" = no repos).
	home string
	// origin is the shared workspace as setup left it: what a before_each reset returns to.
	origin snapshot

	logMu sync.Mutex
}

// errClosed is returned by Acquire after Close.
var errClosed = errors.New("workspace: manager is closed")

// NewManager returns a Manager for spec; nothing is created until the first Acquire.
func NewManager(spec *suite.Workspace, opts ManagerOptions) *Manager {
	if spec == nil {
		spec = &suite.Workspace{}
	}
	return &Manager{spec: spec, opts: opts, sem: make(chan struct{}, 1)}
}

// isShared reports whether every test runs in one workspace.
func (m *Manager) isShared() bool { return m.spec.Isolation == "shared" || m.static() }

// static reports whether the workspace is the user's directory at workspace.path.
func (m *Manager) static() bool { return m.spec.Path != "" }

// hook is the spec's hook for stage, nil when there is none or hooks are disabled.
func (m *Manager) hook(stage stage) *suite.Hook {
	h := m.spec.Hooks
	if h.Disabled {
		return nil
	}
	switch stage {
	case beforeAll:
		return h.BeforeAll
	case beforeEach:
		return h.BeforeEach
	case afterEach:
		return h.AfterEach
	default:
		return h.AfterAll
	}
}

// resets reports whether h puts the workspace back (fast or strict), and whether strictly.
func resets(h *suite.Hook) (reset, strict bool) {
	if h == nil {
		return false, false
	}
	return h.Reset == "fast" || h.Reset == "strict", h.Reset == "strict"
}

// Acquire prepares the workspace of one test: setup if this is the first test, then (shared)
// waiting for the workspace, then before_each and a fresh baseline. The lease must be closed.
func (m *Manager) Acquire(ctx context.Context, testID string, caseInput any, metadata map[string]any) (*Lease, error) {
	if err := m.setup(ctx); err != nil {
		return nil, err
	}
	in := hookInput{TestID: testID, EvalRunID: m.opts.RunID, CaseInput: caseInput, CaseMetadata: metadata}
	if m.isShared() {
		if err := m.lock(ctx); err != nil {
			return nil, fmt.Errorf("workspace: waiting for the shared workspace: %w", err)
		}
		if reset, strict := resets(m.hook(beforeEach)); reset {
			if err := m.reset(ctx, m.shared, m.origin, strict); err != nil {
				m.unlock()
				return nil, fmt.Errorf("before_each reset: %w", err)
			}
		}
		stop, err := m.beforeEach(ctx, m.shared, in, true)
		if err != nil {
			m.unlock()
			return nil, err
		}
		return newLease(ctx, m, m.shared, in, stop), nil
	}
	var w *Workspace
	var err error
	if m.base != "" {
		// The base was made by evalgate and the suite's hooks: its repositories are copied too.
		w, err = create(ctx, m.opts.Parent, m.opts.User, func(dir string) error { return copyTree(m.base, dir, true) })
	} else {
		w, err = prepare(ctx, m.opts.Parent, m.spec.Template, m.opts.User)
	}
	if err != nil {
		return nil, err
	}
	stop, err := m.beforeEach(ctx, w, in, false)
	if err != nil {
		w.Close(false)
		return nil, err
	}
	return newLease(ctx, m, w, in, stop), nil
}

// beforeEach runs the before_each command and moves the baseline past what it (and, when
// always, an earlier test or a reset) changed. stop ends what the hook left running; on an
// error it has been ended already.
func (m *Manager) beforeEach(ctx context.Context, w *Workspace, in hookInput, always bool) (stop func(), err error) {
	stop = func() {}
	h := m.hook(beforeEach)
	ran := h != nil && len(h.Command) > 0
	if ran {
		if stop, err = runHook(ctx, beforeEach, h, in, w.Dir(), m.opts.User); err != nil {
			return stop, err
		}
	}
	if !ran && !always {
		return stop, nil
	}
	if err := w.baseline(ctx); err != nil {
		stop()
		return func() {}, err
	}
	return stop, nil
}

// reset puts w's files back to s and each repository's .git back as cloned.
func (m *Manager) reset(ctx context.Context, w *Workspace, s snapshot, strict bool) error {
	if err := w.restore(ctx, s, strict); err != nil {
		return err
	}
	for i, r := range m.spec.Repos {
		src := m.clonedGit(i)
		if _, err := os.Lstat(src); err != nil {
			continue // not a repository when setup finished: nothing to put back
		}
		if err := w.restoreGit(r.Path, src); err != nil {
			return fmt.Errorf("workspace reset: repo %s: %w", r.Path, err)
		}
	}
	// What evalgate put back is root's until handed back to the agent's user.
	if err := w.own(); err != nil {
		return fmt.Errorf("workspace reset: %w", err)
	}
	return nil
}

// clonedGit is where the .git directory of repo i is kept as setup left it: in the base of a
// per_test workspace, else in evalgate's private directory.
func (m *Manager) clonedGit(i int) string {
	if m.base != "" {
		return filepath.Join(m.base, filepath.FromSlash(m.spec.Repos[i].Path), ".git")
	}
	return filepath.Join(m.home, "git", strconv.Itoa(i))
}

// Close runs after_all (a failure is only logged), ends what before_all left running, and
// removes what the manager created, except a shared workspace a lease asked to keep. Call it
// once every lease is closed. after_all runs even when ctx is already cancelled, bounded by its
// own timeout: it is teardown, and may be what stops a service before_all started.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	ready, closed := m.ready, m.closed
	m.closed = true
	m.mu.Unlock()
	if closed || ready == nil {
		return nil // closed twice, or no test ever ran: nothing was set up
	}
	select {
	case <-ready:
	case <-ctx.Done():
		return fmt.Errorf("workspace: close: waiting for setup: %w", ctx.Err())
	}
	if m.isShared() {
		if err := m.lock(ctx); err != nil {
			return fmt.Errorf("workspace: close: waiting for the shared workspace: %w", err)
		}
		defer m.unlock()
	}
	dir := m.base
	if m.shared != nil {
		dir = m.shared.Dir()
	}
	if h := m.hook(afterAll); h != nil && len(h.Command) > 0 && m.setupErr == nil {
		in := hookInput{WorkspacePath: dir, EvalRunID: m.opts.RunID}
		if _, err := runHook(context.WithoutCancel(ctx), afterAll, h, in, dir, m.opts.User); err != nil {
			m.warn(err)
		}
	}
	if m.stopSetup != nil {
		m.stopSetup()
	}
	m.mu.Lock()
	keep := m.keep
	m.mu.Unlock()
	var errs []error
	if m.shared != nil {
		_, err := m.shared.Close(keep)
		errs = append(errs, err)
	}
	if m.base != "" {
		errs = append(errs, os.RemoveAll(m.base))
	}
	if m.home != "" {
		errs = append(errs, os.RemoveAll(m.home))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("workspace: close: %w", err)
	}
	return nil
}

// lock takes the shared workspace, or fails when ctx ends first. A free workspace is taken
// even under a done ctx, so Close after the last lease never loses a race to cancellation.
func (m *Manager) lock(ctx context.Context) error {
	select {
	case m.sem <- struct{}{}:
		return nil
	default:
	}
	select {
	case m.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *Manager) unlock() { <-m.sem }

// warn reports a hook failure that does not fail the test.
func (m *Manager) warn(err error) {
	if m.opts.Log == nil {
		return
	}
	m.logMu.Lock()
	defer m.logMu.Unlock()
	fmt.Fprintf(m.opts.Log, "warning: %v\n", err)
}
