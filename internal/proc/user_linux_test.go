//go:build linux

package proc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needRoot skips a test of the isolation user where it cannot be made.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
}

// TestUserCommand runs a command as the isolation user: it has the user's ids and no other
// group, no new privileges, its own HOME and TMPDIR, and cannot signal or read the environment
// of its supervisor or of evalgate (this test process), which stay root.
func TestUserCommand(t *testing.T) {
	t.Parallel()
	needRoot(t)
	u, err := NewUser("", AgentUID, AgentGID) // its parent must let the user through
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	script := `echo "ids $(id -u) $(id -g) $(id -G)"
		grep '^NoNewPrivs:' /proc/self/status
		echo "home $HOME $TMPDIR"
		touch "$HOME/x" "$TMPDIR/y" && echo writable
		kill -0 $PPID 2>/dev/null && echo "signalled the supervisor"
		kill -0 $EVALGATE 2>/dev/null && echo "signalled evalgate"
		cat /proc/$PPID/environ 2>/dev/null && echo "read the supervisor's environ"
		cat /proc/$EVALGATE/environ 2>/dev/null && echo "read evalgate's environ"
		true`
	cmd := Command(t.Context(), "sh", "-c", script)
	cmd.User = u
	cmd.Env = []string{"EVALGATE=" + strconv.Itoa(os.Getpid())}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if st, err := cmd.Run(); err != nil || st.Code != 0 {
		t.Fatalf("run: %v %v\n%s", st, err, out.String())
	}
	got := out.String()
	for _, want := range []string{"ids 10001 10001 10001\n", "NoNewPrivs:\t1\n", "home " + u.Home + " " + u.Tmp + "\n", "writable\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"signalled", "read the", "read evalgate"} {
		if strings.Contains(got, bad) {
			t.Errorf("the command %s:\n%s", bad, got)
		}
	}
	for _, d := range []string{u.Home, u.Tmp} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != AgentUID || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: owner %d mode %v, want %d 0700", d, st.Uid, fi.Mode().Perm(), AgentUID)
		}
	}
	if err := u.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(u.root); !os.IsNotExist(err) {
		t.Errorf("Close left %s: %v", u.root, err)
	}
}

// TestUserOwn hands a tree to the user without following its links.
func TestUserOwn(t *testing.T) {
	t.Parallel()
	needRoot(t)
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "a", "link")); err != nil {
		t.Fatal(err)
	}
	u := &User{UID: AgentUID, GID: AgentGID}
	if err := u.Own(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "a", "b"), filepath.Join(dir, "a", "link")} {
		if fi, err := os.Lstat(p); err != nil || fi.Sys().(*syscall.Stat_t).Uid != AgentUID {
			t.Errorf("%s is not the user's: %v", p, err)
		}
	}
	if fi, _ := os.Stat(outside); fi.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Errorf("Own followed a link to %s", outside)
	}
	if err := (*User)(nil).Own(dir); err != nil {
		t.Errorf("nil user: %v", err)
	}
}

// TestInitNotDumpable starts the init evalgate becomes as PID 1 under an unprivileged uid,
// with a secret in its environment: its child, of the same uid, cannot read /proc/<init>/environ.
// (Under the isolation user the uids differ as well; the e2e tests cover that.)
func TestInitNotDumpable(t *testing.T) {
	t.Parallel()
	needRoot(t)
	// The test binary lives in a directory only root can enter: the uid needs its own copy.
	bin := filepath.Join(t.TempDir(), "proc.test")
	copyExecutable(t, bin)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	script := `cat /proc/$PPID/environ > "$OUT" 2>/dev/null; echo "exit $?" >> "$OUT"`
	// A test running in parallel that forks while copyExecutable still holds bin open for
	// writing hands the child that descriptor until it execs, and exec of a file open for
	// writing fails with ETXTBSY (golang.org/issue/22315): retry that, briefly.
	for attempt := 1; ; attempt++ {
		cmd := &exec.Cmd{Path: bin, Args: []string{initArg0, "/bin/sh", "sh", "-c", script},
			Env:         []string{"OUT=" + out, "OPENAI_API_KEY=sk-planted-secret", "PATH=" + os.Getenv("PATH")},
			SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: AgentUID, Gid: AgentGID, Groups: []uint32{}}}}
		b, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ETXTBSY) && attempt < 10 {
			time.Sleep(time.Duration(attempt) * 20 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("init: %v\n%s", err, b)
		}
		break
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("sk-planted-secret")) || !bytes.Contains(b, []byte("exit 1")) {
		t.Fatalf("the init's child read its environment:\n%s", b)
	}
}

func copyExecutable(t *testing.T, dst string) {
	t.Helper()
	src, err := os.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, src); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's directory and its parent are root's, 0700.
	for _, d := range []string{filepath.Dir(dst), filepath.Dir(filepath.Dir(dst))} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
