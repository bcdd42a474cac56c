package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
)

// Lease must keep the shape of engine.Workspace (not imported: the engine is wired elsewhere).
var _ interface {
	Dir() string
	Diff(ctx context.Context) (string, error)
	Close(keep bool) (string, error)
} = (*Lease)(nil)

var isolations = []string{"per_test", "shared"}

// lines counts the lines of a file the hooks append to ("" when missing = 0).
func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func TestBeforeAllRunsOnceUnderConcurrentAcquire(t *testing.T) {
	t.Parallel()
	for _, iso := range isolations {
		for _, fail := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fail=%v", iso, fail), func(t *testing.T) {
				t.Parallel()
				count := filepath.Join(t.TempDir(), "count")
				script := "echo run >> " + q(count) + "; sleep 0.2; echo ready > prepared.txt"
				if fail {
					script += "; echo setup broke >&2; exit 4"
				}
				spec := &suite.Workspace{Template: template(t), Isolation: iso, Hooks: suite.WorkspaceHooks{BeforeAll: hook(2, script)}}
				m := NewManager(spec, ManagerOptions{Parent: t.TempDir(), RunID: "r"})
				var wg sync.WaitGroup
				errs := make([]error, 8)
				for i := range 8 {
					wg.Go(func() {
						l, err := m.Acquire(t.Context(), fmt.Sprint("t", i), nil, nil)
						errs[i] = err
						if err != nil {
							return
						}
						defer l.Close(false)
						if _, err := os.Stat(filepath.Join(l.Dir(), "prepared.txt")); err != nil {
							t.Errorf("test %d does not see before_all's work: %v", i, err)
						}
						if d, err := l.Diff(t.Context()); err != nil || d != "" {
							t.Errorf("test %d diff = %q, %v; before_all is not the agent's change", i, d, err)
						}
					})
				}
				wg.Wait()
				if n := lines(t, count); n != 1 {
					t.Errorf("before_all ran %d times", n)
				}
				for i, err := range errs {
					if fail != (err != nil) || fail && !strings.Contains(err.Error(), "before_all hook (evals/ws.yaml:2) exited 4: setup broke") {
						t.Errorf("Acquire %d: %v", i, err)
					}
				}
				if err := m.Close(t.Context()); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestBeforeEachFailureFailsAcquire(t *testing.T) {
	t.Parallel()
	for _, iso := range isolations {
		t.Run(iso, func(t *testing.T) {
			t.Parallel()
			parent := t.TempDir()
			spec := &suite.Workspace{Isolation: iso, Hooks: suite.WorkspaceHooks{BeforeEach: hook(7, "echo nope >&2; exit 3")}}
			m := NewManager(spec, ManagerOptions{Parent: parent})
			// Twice: a failed shared Acquire must release the workspace, or the second would hang.
			for range 2 {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				l, err := m.Acquire(ctx, "t", nil, nil)
				cancel()
				if l != nil || err == nil || err.Error() != "before_each hook (evals/ws.yaml:7) exited 3: nope" {
					t.Fatalf("Acquire = %v, %v", l, err)
				}
			}
			if err := m.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestAfterEachFailureOnlyWarns(t *testing.T) {
	t.Parallel()
	for _, iso := range isolations {
		t.Run(iso, func(t *testing.T) {
			t.Parallel()
			var log bytes.Buffer
			spec := &suite.Workspace{Isolation: iso, Hooks: suite.WorkspaceHooks{AfterEach: hook(9, "echo cleanup failed >&2; exit 1")}}
			m := NewManager(spec, ManagerOptions{Parent: t.TempDir(), Log: &log})
			l, err := m.Acquire(t.Context(), "t", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Close(false); err != nil {
				t.Fatalf("Close = %v", err)
			}
			if err := m.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			if want := "warning: after_each hook (evals/ws.yaml:9) exited 1: cleanup failed\n"; log.String() != want {
				t.Errorf("log = %q, want %q", log.String(), want)
			}
		})
	}
}

func TestSharedTestsSeeOnlyTheirOwnChanges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	spec := &suite.Workspace{Template: template(t), Isolation: "shared",
		Hooks: suite.WorkspaceHooks{BeforeEach: hook(3, "echo \"$(cat)\" >> hook.log")}}
	m := NewManager(spec, ManagerOptions{Parent: t.TempDir()})
	var holders atomic.Int32
	var overlap atomic.Bool
	var wg sync.WaitGroup
	diffs, dirs := make([]string, 3), make([]string, 3)
	for i := range 3 {
		wg.Go(func() {
			l, err := m.Acquire(ctx, fmt.Sprint("t", i), "question", nil)
			if err != nil {
				t.Error(err)
				return
			}
			if holders.Add(1) > 1 {
				overlap.Store(true)
			}
			time.Sleep(50 * time.Millisecond)
			dirs[i] = l.Dir()
			if err := os.WriteFile(filepath.Join(l.Dir(), fmt.Sprintf("agent%d.txt", i)), []byte("mine\n"), 0o644); err != nil {
				t.Error(err)
			}
			diffs[i], err = l.Diff(ctx)
			if err != nil {
				t.Error(err)
			}
			holders.Add(-1)
			if kept, err := l.Close(false); kept != "" || err != nil {
				t.Errorf("Close = %q, %v", kept, err)
			}
		})
	}
	wg.Wait()
	if overlap.Load() {
		t.Error("two tests held the shared workspace at once")
	}
	for i, d := range diffs {
		if strings.Count(d, "diff --git") != 1 || !strings.Contains(d, fmt.Sprintf("+++ b/agent%d.txt", i)) {
			t.Errorf("test %d diff:\n%s", i, d)
		}
	}
	dir := dirs[0]
	if dirs[1] != dir || dirs[2] != dir {
		t.Errorf("dirs = %v, want one", dirs)
	}
	// Shared means shared: later tests saw earlier tests' files, and before_each ran per test.
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("agent%d.txt", i))); err != nil {
			t.Error(err)
		}
	}
	if n := lines(t, filepath.Join(dir, "hook.log")); n != 3 {
		t.Errorf("before_each ran %d times", n)
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("shared workspace not removed: %v", err)
	}
}

func TestPerTestWorkspacesAreIndependent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	spec := &suite.Workspace{Template: template(t), Isolation: "per_test",
		Hooks: suite.WorkspaceHooks{BeforeEach: hook(3, "echo setup > each.txt")}}
	m := NewManager(spec, ManagerOptions{Parent: t.TempDir()})
	leases := make([]*Lease, 3)
	for i := range leases {
		l, err := m.Acquire(ctx, fmt.Sprint("t", i), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		leases[i] = l
	}
	seen := map[string]bool{}
	for i, l := range leases {
		if seen[l.Dir()] {
			t.Fatalf("dir %s handed out twice", l.Dir())
		}
		seen[l.Dir()] = true
		if err := os.WriteFile(filepath.Join(l.Dir(), fmt.Sprintf("agent%d.txt", i)), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range leases {
		d, err := l.Diff(ctx)
		if err != nil || strings.Count(d, "diff --git") != 1 || !strings.Contains(d, fmt.Sprintf("+++ b/agent%d.txt", i)) {
			t.Errorf("test %d diff (%v):\n%s", i, err, d)
		}
	}
	kept, err := leases[0].Close(true)
	if err != nil || kept != leases[0].Dir() {
		t.Fatalf("Close(true) = %q, %v", kept, err)
	}
	for _, l := range leases[1:] {
		if kept, err := l.Close(false); kept != "" || err != nil {
			t.Fatalf("Close(false) = %q, %v", kept, err)
		}
		if _, err := os.Stat(l.Dir()); !os.IsNotExist(err) {
			t.Errorf("%s not removed", l.Dir())
		}
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(kept, "agent0.txt")); err != nil {
		t.Errorf("kept workspace: %v", err)
	}
}

func TestManagerCloseRunsAfterAll(t *testing.T) {
	t.Parallel()
	for _, iso := range isolations {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keep=%v", iso, keep), func(t *testing.T) {
				t.Parallel()
				ctx := t.Context()
				out := filepath.Join(t.TempDir(), "after_all.json")
				var log bytes.Buffer
				spec := &suite.Workspace{Isolation: iso, Hooks: suite.WorkspaceHooks{
					BeforeAll: hook(2, "echo base > base.txt"),
					AfterAll:  hook(5, "test -f base.txt && cat > "+q(out)+"; echo teardown failed >&2; exit 1"),
				}}
				m := NewManager(spec, ManagerOptions{Parent: t.TempDir(), RunID: "run-9", Log: &log})
				if err := m.Close(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := m.Acquire(ctx, "t", nil, nil); err == nil {
					t.Fatal("Acquire after Close succeeded")
				}
				m = NewManager(spec, ManagerOptions{Parent: t.TempDir(), RunID: "run-9", Log: &log})
				l, err := m.Acquire(ctx, "t", nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				kept, err := l.Close(keep)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Fatal("after_all ran before Close")
				}
				if err := m.Close(ctx); err != nil {
					t.Fatalf("Close = %v (an after_all failure only warns)", err)
				}
				got := readJSON(t, out)
				if got["eval_run_id"] != "run-9" || got["workspace_path"] == "" || got["test_id"] != nil {
					t.Errorf("after_all stdin = %v", got)
				}
				if !strings.Contains(log.String(), "warning: after_all hook (evals/ws.yaml:5) exited 1: teardown failed") {
					t.Errorf("log = %q", log.String())
				}
				// The shared workspace is the suite's to remove, and it is kept if a test asked.
				if iso == "shared" {
					if keep != (kept != "") {
						t.Errorf("kept = %q", kept)
					}
					if _, err := os.Stat(got["workspace_path"].(string)); keep != (err == nil) {
						t.Errorf("keep=%v, shared workspace stat: %v", keep, err)
					}
				} else if _, err := os.Stat(got["workspace_path"].(string)); !os.IsNotExist(err) {
					t.Errorf("per_test base not removed: %v", err)
				}
				if err := m.Close(ctx); err != nil {
					t.Errorf("second Close = %v", err)
				}
			})
		}
	}
}
