// Package proc runs the commands evalgate starts for users — agents, grader scripts, workspace
// hooks — each as the leader of its own process group, so that a timeout or a cancellation
// ends the command and every child it forked, not just the shell in front of them.
package proc

import (
	"os/exec"
	"syscall"
	"time"
)

// Group makes cmd (built with exec.CommandContext) lead a new process group. When the context
// ends, the whole group gets SIGTERM; a leader still running grace later is killed, and Wait
// stops waiting for output pipes a leftover child holds open (exec.ErrWaitDelay). Call Kill
// after Wait to end whatever the group left behind.
func Group(cmd *exec.Cmd, grace time.Duration) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = grace
}

// Kill sends SIGKILL to the group of a started command.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
