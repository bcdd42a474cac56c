//go:build linux

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// q makes s one shell word.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// alive reports whether pid is running; a zombie waiting to be reaped is not.
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// pidIn reads the pid a script wrote to file, waiting a moment for it to appear.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s: %v", file, err)
		}
	}
}

// mustDie fails the test unless pid is gone within a few seconds (a kill is asynchronous);
// a survivor is killed so it does not outlive the test.
func mustDie(t *testing.T, pid int, what string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s (pid %d) outlived its command", what, pid)
			return
		}
	}
}

// daemon is a shell snippet starting a detached process — its own session, its output
// redirected — that writes its pid to the file named by the shell word file and runs for
// 30 s, ignoring SIGTERM and SIGHUP.
func daemon(file string) string {
	return `PIDFILE=` + file + ` setsid sh -c 'trap "" TERM HUP; echo $$ > "$PIDFILE"; exec sleep 30' >/dev/null 2>&1 </dev/null &`
}

func TestCmdLifecycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string // $D is a scratch directory; pid files go there
		env    []string
		// timeout ends the command's context; 0 = a minute.
		timeout time.Duration
		keep    bool
		want    State
		wantErr error
		// pids are the pid files of processes that must be dead when Wait returns (after Stop
		// for kept ones).
		pids []string
		// kept: the processes in pids are still running after Wait, until Stop.
		kept bool
	}{
		{name: "exits cleanly", script: "true"},
		{name: "exit code", script: "exit 3", want: State{Code: 3}},
		{name: "killed by a signal", script: "kill -KILL $$", want: State{Code: -1, Signal: syscall.SIGKILL}},
		{name: "children that finished", script: "sh -c true & wait"},
		{name: "child left in its group", script: `sleep 30 >/dev/null 2>&1 & echo $! > "$D/a"`,
			want: State{Lingered: true}, pids: []string{"a"}},
		{name: "setsid daemon", script: daemon(`"$D/a"`) + ` until [ -s "$D/a" ]; do sleep 0.01; done`,
			want: State{Lingered: true}, pids: []string{"a"}},
		{name: "double fork holding the output", script: `sh -c 'setsid sh -c "$INNER" & until [ -s "$D/a" ]; do sleep 0.01; done'`,
			env:  []string{`INNER=trap "" TERM; echo $$ > "$D/a"; exec sleep 30`},
			want: State{Lingered: true}, pids: []string{"a"}},
		{name: "deep tree", script: `sh -c "$L1" >/dev/null 2>&1 & until [ -s "$D/c" ]; do sleep 0.01; done`,
			env: []string{`L1=sh -c "$L2" & echo $$ > "$D/a"; exec sleep 30`, `L2=sh -c "$L3" & echo $$ > "$D/b"; exec sleep 30`,
				`L3=echo $$ > "$D/c"; exec sleep 30`},
			want: State{Lingered: true}, pids: []string{"a", "b", "c"}},
		{name: "timeout ends command and daemon, both ignoring SIGTERM",
			script:  "trap '' TERM; " + daemon(`"$D/a"`) + ` until [ -s "$D/a" ]; do sleep 0.01; done; sleep 30`,
			timeout: 300 * time.Millisecond, want: State{Code: -1, Signal: syscall.SIGKILL}, wantErr: context.DeadlineExceeded,
			pids: []string{"a"}},
		{name: "keep leaves a service until Stop", keep: true, script: daemon(`"$D/a"`) + ` until [ -s "$D/a" ]; do sleep 0.01; done`,
			want: State{Lingered: true}, pids: []string{"a"}, kept: true},
		{name: "keep after a failure kills", keep: true, script: daemon(`"$D/a"`) + ` until [ -s "$D/a" ]; do sleep 0.01; done; exit 4`,
			want: State{Code: 4, Lingered: true}, pids: []string{"a"}},
		{name: "keep with nothing left", keep: true, script: "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			timeout := tt.timeout
			if timeout == 0 {
				timeout = time.Minute
			}
			ctx, cancel := context.WithTimeout(t.Context(), timeout)
			defer cancel()
			cmd := Command(ctx, "sh", "-c", tt.script)
			cmd.Env = append([]string{"D=" + dir}, tt.env...)
			cmd.Grace = 200 * time.Millisecond
			cmd.Keep = tt.keep
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			st, err := cmd.Run()
			defer cmd.Stop()
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v (output %q)", err, tt.wantErr, out.String())
			}
			if st == nil || *st != tt.want {
				t.Fatalf("state = %+v, want %+v (output %q)", st, tt.want, out.String())
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %s", d)
			}
			for _, name := range tt.pids {
				pid := pidIn(t, filepath.Join(dir, name))
				if tt.kept {
					if !alive(pid) {
						t.Fatalf("%s (pid %d) died before Stop", name, pid)
					}
					cmd.Stop()
				}
				mustDie(t, pid, name)
			}
		})
	}
}

func TestCmdStartErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cmd  func() *Cmd
		want string
	}{
		{"missing program", func() *Cmd { return Command(t.Context(), "/nonexistent/evalgate-hook") },
			"fork/exec /nonexistent/evalgate-hook: no such file or directory"},
		{"not in PATH", func() *Cmd { return Command(t.Context(), "evalgate-no-such-program") },
			`exec: "evalgate-no-such-program": executable file not found in $PATH`},
		{"missing directory", func() *Cmd {
			c := Command(t.Context(), "true")
			c.Dir = "/nonexistent/evalgate-dir"
			return c
		}, "chdir /nonexistent/evalgate-dir: no such file or directory"},
		{"context already done", func() *Cmd {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return Command(ctx, "true")
		}, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tt.cmd().Run(); err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCmdPassesInputAndOutput(t *testing.T) {
	t.Parallel()
	cmd := Command(t.Context(), "sh", "-c", `cat; echo "to stderr $X" >&2; pwd`)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"X=set"}
	cmd.Stdin = strings.NewReader("from stdin\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if st, err := cmd.Run(); err != nil || st.Code != 0 {
		t.Fatalf("run: %+v %v", st, err)
	}
	wd, _ := filepath.EvalSymlinks(cmd.Dir)
	if got, want := stdout.String(), "from stdin\n"+wd+"\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got := stderr.String(); got != "to stderr set\n" {
		t.Errorf("stderr = %q", got)
	}
}

// TestConcurrentCommandsKeepTheirOwn runs eight commands at once, each with a daemon, and ends
// them one by one: each end kills that command's daemon and no other.
func TestConcurrentCommandsKeepTheirOwn(t *testing.T) {
	t.Parallel()
	const n = 8
	dir := t.TempDir()
	done := make([]chan error, n)
	for i := range n {
		done[i] = make(chan error, 1)
		script := daemon(q(fmt.Sprintf("%s/daemon%d", dir, i))) +
			fmt.Sprintf(` until [ -e %s/release%d ]; do sleep 0.01; done`, q(dir), i)
		cmd := Command(t.Context(), "sh", "-c", script)
		cmd.Grace = time.Second
		go func() {
			st, err := cmd.Run()
			if err == nil && !st.Lingered {
				err = fmt.Errorf("state %+v: the daemon did not count as left behind", st)
			}
			done[i] <- err
		}()
	}
	pids := make([]int, n)
	for i := range n {
		pids[i] = pidIn(t, fmt.Sprintf("%s/daemon%d", dir, i))
	}
	for i := range n {
		if err := os.WriteFile(fmt.Sprintf("%s/release%d", dir, i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := <-done[i]; err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
		mustDie(t, pids[i], fmt.Sprintf("daemon %d", i))
		for j := i + 1; j < n; j++ {
			if !alive(pids[j]) {
				t.Fatalf("ending command %d killed the daemon of command %d", i, j)
			}
		}
	}
}

// TestDaemonsDieWithEvalgate kills a process that runs a contained command the way evalgate
// would be killed (SIGKILL, no cleanup): the command's daemon still dies.
func TestDaemonsDieWithEvalgate(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "daemon")
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), helperEnv+"="+pidFile)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	pid := pidIn(t, pidFile)
	_ = helper.Process.Kill()
	_ = helper.Wait()
	mustDie(t, pid, "the daemon of a killed evalgate")
}

// helperEnv names the pid file when the test binary runs as TestDaemonsDieWithEvalgate's
// stand-in for evalgate.
const helperEnv = "EVALGATE_PROC_HELPER"

func TestMain(m *testing.M) {
	if pidFile := os.Getenv(helperEnv); pidFile != "" {
		// The stand-in: start a command with a daemon, then wait to be killed. TestMain has no
		// test to take a context from, and this process ends by SIGKILL, not by cancelling.
		cmd := Command(context.Background(), "sh", "-c", daemon(q(pidFile))+" sleep 30")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		time.Sleep(30 * time.Second)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
