//go:build linux

package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
)

// TestRunHookLeftovers starts a detached service from each kind of hook: a successful setup
// hook's service runs until stop (its suite or test is over), anything else is killed as soon
// as the hook exits.
func TestRunHookLeftovers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stage stage
		fail  bool
		kept  bool
	}{
		{beforeAll, false, true},
		{beforeEach, false, true},
		{beforeEach, true, false},
		{afterEach, false, false},
		{afterAll, false, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/fail=%v", tc.stage, tc.fail), func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			// The service holds the hook's stdout, as a careless one would.
			script := "PIDFILE=" + q(pidFile) + ` setsid sh -c 'echo $$ > "$PIDFILE"; exec sleep 30' &
				until [ -s ` + q(pidFile) + ` ]; do sleep 0.01; done`
			if tc.fail {
				script += "; exit 1"
			}
			start := time.Now()
			stop, err := runHook(t.Context(), tc.stage, hook(1, script), hookInput{}, t.TempDir(), nil)
			if (err != nil) != tc.fail {
				t.Fatalf("err = %v", err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %s", d)
			}
			pid := pidOf(t, pidFile)
			defer syscall.Kill(pid, syscall.SIGKILL)
			if tc.kept {
				if !running(pid) {
					t.Fatal("the service did not outlive its setup hook")
				}
				stop()
				stop() // harmless
			}
			gone(t, pid, "the hook's service")
		})
	}
}

// running reports whether pid is running; a zombie waiting to be reaped is not.
func running(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestManagerEndsHookServicesWithTheirScope: a service before_each starts lives until its
// test's lease is closed, one before_all starts until the manager is.
func TestManagerEndsHookServicesWithTheirScope(t *testing.T) {
	t.Parallel()
	for _, iso := range isolations {
		t.Run(iso, func(t *testing.T) {
			t.Parallel()
			pids := t.TempDir()
			service := func(name string) *suite.Hook {
				file := q(filepath.Join(pids, name))
				return hook(1, "PIDFILE="+file+` setsid sh -c 'echo $$ > "$PIDFILE"; exec sleep 30' >/dev/null 2>&1 &
					until [ -s `+file+` ]; do sleep 0.01; done`)
			}
			spec := &suite.Workspace{Template: template(t), Isolation: iso,
				Hooks: suite.WorkspaceHooks{BeforeAll: service("all"), BeforeEach: service("each")}}
			m := NewManager(spec, ManagerOptions{Parent: t.TempDir(), RunID: "r"})
			l, err := m.Acquire(t.Context(), "t1", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			all, each := pidOf(t, filepath.Join(pids, "all")), pidOf(t, filepath.Join(pids, "each"))
			defer syscall.Kill(all, syscall.SIGKILL)
			defer syscall.Kill(each, syscall.SIGKILL)
			if !running(all) || !running(each) {
				t.Fatal("a service died with its hook")
			}
			if _, err := l.Close(false); err != nil {
				t.Fatal(err)
			}
			gone(t, each, "before_each's service after its test")
			if !running(all) {
				t.Fatal("before_all's service died with a test")
			}
			if err := m.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			gone(t, all, "before_all's service after the suite")
		})
	}
}

func pidOf(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %q", file, b)
	}
	return pid
}

// gone fails the test unless pid ends within a few seconds.
func gone(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still runs", what, pid)
		}
	}
}
