package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stopMargin is how long past grace and its SIGKILL rounds a supervisor that has been told to
// stop may take before evalgate kills it outright (its descendants would then escape to init:
// the last resort, never the plan).
const stopMargin = killBudget + time.Second

// sysCmd is the evalgate side of a supervisor. The supervisor reports on a pipe, one line at
// a time: "started PID" or "error MESSAGE" once the command has been started or could not be,
// then "exit CODE SIGNAL LINGERED KEPT" when it exits. KEPT means it stays up, holding what
// the command left running, until it gets SIGTERM.
type sysCmd struct {
	cmd    *exec.Cmd
	status *os.File
	lines  *bufio.Reader

	mu       sync.Mutex
	kept     bool        // the supervisor holds leftovers until stop
	hardKill *time.Timer // kills a supervisor that does not stop in time
}

func (c *Cmd) start() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	keep := "0"
	if c.Keep {
		keep = "1"
	}
	cred := "-"
	if c.User != nil {
		cred = fmt.Sprintf("%d:%d", c.User.UID, c.User.GID)
	}
	// /proc/self/exe is this very binary even if its file was replaced or removed since.
	cmd := &exec.Cmd{
		Path: "/proc/self/exe",
		Args: append([]string{supervisorArg0, c.Grace.String(), keep, cred, c.path}, c.args...),
		Dir:  c.Dir, Env: env(nil, append(c.User.env(), c.Env...)...),
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		ExtraFiles: []*os.File{w},
		// The supervisor stays out of evalgate's process group (a terminal's Ctrl-C is
		// evalgate's to handle) and cleans up if evalgate dies.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM},
		// Pipes a process outside the tree still holds once the supervisor has exited.
		WaitDelay: c.Grace,
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	s := &sysCmd{cmd: cmd, status: r, lines: bufio.NewReader(r)}
	c.sys = s
	line, err := s.lines.ReadString('\n')
	switch word, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " "); {
	case err == nil && word == "started":
		return nil
	case err == nil && word == "error":
		err = errors.New(rest)
	default:
		err = fmt.Errorf("supervisor: %q: %w", line, err)
		_ = cmd.Process.Kill()
	}
	_ = cmd.Wait()
	r.Close()
	c.sys = nil
	return err
}

// terminate asks the supervisor to stop the command: SIGTERM to the whole tree, SIGKILL
// grace later.
func (c *Cmd) terminate() {
	s := c.sys
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hardKill == nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		s.hardKill = time.AfterFunc(c.Grace+stopMargin, func() { _ = s.cmd.Process.Kill() })
	}
}

func (c *Cmd) wait() (*State, error) {
	s := c.sys
	line, rerr := s.lines.ReadString('\n')
	var st State
	var lingered, kept bool
	var sig int
	_, perr := fmt.Sscanf(line, "exit %d %d %t %t\n", &st.Code, &sig, &lingered, &kept)
	st.Signal, st.Lingered = syscall.Signal(sig), lingered
	c.markExited()
	if rerr != nil || perr != nil {
		werr := s.finish()
		return nil, fmt.Errorf("supervisor ended without a verdict (%q): %w", line, errors.Join(rerr, werr))
	}
	if kept {
		s.mu.Lock()
		s.kept = true
		s.mu.Unlock()
		return &st, nil
	}
	switch err := s.finish(); {
	case errors.Is(err, exec.ErrWaitDelay):
		st.Lingered = true // something outside the tree held the output open
	case err != nil:
		return &st, fmt.Errorf("supervisor: %w", err)
	}
	return &st, nil
}

// finish waits for the supervisor to exit and closes the status pipe.
func (s *sysCmd) finish() error {
	err := s.cmd.Wait()
	s.mu.Lock()
	if s.hardKill != nil {
		s.hardKill.Stop()
	}
	s.mu.Unlock()
	s.status.Close()
	return err
}

func (c *Cmd) stop() {
	s := c.sys
	s.mu.Lock()
	kept := s.kept
	s.kept = false
	s.mu.Unlock()
	if !kept {
		return
	}
	c.terminate()
	_ = s.finish()
}
