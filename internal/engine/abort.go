package engine

import (
	"errors"
	"fmt"
	"sync"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
)

// StoppedError is the run stopping early because a model endpoint cannot be reached at all
// (connection refused, unknown host): every later test would meet the same refusal, so none
// is started. Tests already running finish; the rest are skipped as not run.
type StoppedError struct {
	// Suite and Test are the test that met the endpoint first.
	Suite, Test string
	// NotRun counts the tests never started.
	NotRun int
	// Err is that test's error; it wraps an *llm.UnreachableError.
	Err error
}

// Error says why the run stopped.
func (e *StoppedError) Error() string {
	return fmt.Sprintf("stopped the run after %s/%s: %v; %d test(s) not run", e.Suite, e.Test, e.Err, e.NotRun)
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *StoppedError) Unwrap() error { return e.Err }

// abort remembers the first test that met an unreachable endpoint and then refuses to start
// more tests.
type abort struct {
	mu      sync.Mutex
	stopped *StoppedError
}

// observe stops the run if tr failed on an unreachable endpoint, as its target or a judge.
func (a *abort) observe(tr *result.TestResult) {
	err := unreachable(tr)
	if err == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped == nil {
		a.stopped = &StoppedError{Suite: tr.Suite, Test: tr.ID, Err: err}
	}
}

// skip reports whether no more tests start, and why; each yes is one test not run.
func (a *abort) skip() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped == nil {
		return "", false
	}
	a.stopped.NotRun++
	st := a.stopped
	var ue *llm.UnreachableError
	errors.As(st.Err, &ue)
	return fmt.Sprintf("not run: the run stopped when %s/%s could not reach %s (%s)", st.Suite, st.Test, ue.Host, ue.Reason), true
}

// err is the run's *StoppedError, nil when it did not stop.
func (a *abort) err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped == nil {
		return nil
	}
	return a.stopped
}

// unreachable returns the error of tr (its target's, or a grader's, members included) that
// wraps an *llm.UnreachableError, or nil.
func unreachable(tr *result.TestResult) error {
	var ue *llm.UnreachableError
	if errors.As(tr.Err, &ue) {
		return tr.Err
	}
	var walk func(gs []*result.GraderResult) error
	walk = func(gs []*result.GraderResult) error {
		for _, g := range gs {
			if g == nil {
				continue
			}
			if errors.As(g.Err, &ue) {
				return g.Err
			}
			if err := walk(g.Members); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(tr.Graders)
}
