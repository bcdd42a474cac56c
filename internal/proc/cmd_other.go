//go:build !linux

package proc

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// sysCmd is a command leading its own process group: without a child subreaper, the group is
// all that can be found and killed, so a descendant that calls setsid escapes.
type sysCmd struct {
	cmd *exec.Cmd

	mu       sync.Mutex
	kept     bool
	hardKill *time.Timer
}

func (c *Cmd) start() error {
	cmd := &exec.Cmd{
		Path: c.path, Args: c.args,
		Dir: c.Dir, Env: Env(nil, append(c.User.env(), c.Env...)...),
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
		WaitDelay:   c.Grace,
	}
	if c.User != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(c.User.UID), Gid: uint32(c.User.GID), Groups: []uint32{}}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	c.sys = &sysCmd{cmd: cmd}
	return nil
}

func (c *Cmd) terminate() {
	s := c.sys
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hardKill == nil {
		s.signal(syscall.SIGTERM)
		s.hardKill = time.AfterFunc(c.Grace, func() { s.signal(syscall.SIGKILL) })
	}
}

func (c *Cmd) wait() (*State, error) {
	s := c.sys
	err := s.cmd.Wait()
	c.markExited()
	s.mu.Lock()
	if s.hardKill != nil {
		s.hardKill.Stop()
	}
	stopped := s.hardKill != nil
	s.mu.Unlock()
	var ee *exec.ExitError
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) && !errors.As(err, &ee) {
		s.signal(syscall.SIGKILL)
		return nil, err
	}
	st := &State{Code: s.cmd.ProcessState.ExitCode()}
	if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		st = stateOf(ws)
	}
	st.Lingered = !stopped && (s.alive() || errors.Is(err, exec.ErrWaitDelay))
	if c.Keep && st.Lingered && st.Code == 0 {
		s.mu.Lock()
		s.kept = true
		s.mu.Unlock()
		return st, nil
	}
	s.signal(syscall.SIGKILL)
	return st, nil
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
	s.signal(syscall.SIGTERM)
	for deadline := time.Now().Add(c.Grace); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(-s.cmd.Process.Pid, 0) != nil {
			return
		}
	}
	s.signal(syscall.SIGKILL)
}

func (s *sysCmd) signal(sig syscall.Signal) {
	_ = syscall.Kill(-s.cmd.Process.Pid, sig)
}

// alive reports whether a process of the group is still running. A child exiting right now is
// not lingering, so it is asked again after a moment.
func (s *sysCmd) alive() bool {
	pgid := s.cmd.Process.Pid
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	time.Sleep(settle)
	return syscall.Kill(-pgid, 0) == nil
}

// settle is how long a group still running when the command exits gets to finish.
const settle = 50 * time.Millisecond

// harden is a no-op where there is no PR_SET_DUMPABLE.
func harden() {}
