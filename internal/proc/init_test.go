//go:build linux

package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInitMode runs the init evalgate becomes as PID 1 (started by name, so no PID namespace
// is needed): orphans that exit are reaped, SIGTERM reaches the command, its exit code is
// the init's, and what it left running dies with it.
func TestInitMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := `trap 'exit 7' TERM
		for i in 1 2 3 4 5; do sh -c 'sleep 0.01 &'; done
		` + daemon(`"$D/daemon"`) + `
		until [ -s "$D/daemon" ]; do sleep 0.01; done
		sleep 0.2; echo > "$D/ready"
		while :; do sleep 0.02; done`
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{initArg0, "/bin/sh", "sh", "-c", script}, Env: []string{"D=" + dir, "PATH=" + os.Getenv("PATH")}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	daemonPid := pidIn(t, filepath.Join(dir, "daemon"))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not get ready")
		}
	}
	for _, c := range children(cmd.Process.Pid) {
		if c.zombie {
			t.Errorf("orphan %d was not reaped", c.pid)
		}
	}
	if !alive(daemonPid) {
		t.Fatal("the daemon died early")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("init ended with %v, want the command's exit code 7", err)
	}
	mustDie(t, daemonPid, "the daemon")
}
