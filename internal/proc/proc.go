// Package proc runs the commands evalgate starts for users — agents, healthchecks, grader
// scripts, workspace hooks — contained, so that nothing they start outlives them and none of
// them sees the job's secrets:
//
//   - Each command gets an allow-listed environment (see Env): never the GitHub token, the
//     Actions runtime tokens or the vendor API keys evalgate itself holds.
//   - On Linux each command runs under a small supervisor — evalgate itself, re-executed — that
//     is the child subreaper of everything the command starts. A descendant that detaches with
//     setsid or a double fork is re-parented to the supervisor instead of init, so it is still
//     found and killed when the command ends or its time is up. Concurrent commands have their
//     own supervisors and never touch each other's processes. Elsewhere the command leads its
//     own process group, and the group is what is killed.
//   - With a User (evalgate is root) the command runs as that unprivileged user, in its own
//     HOME and TMPDIR, with PR_SET_NO_NEW_PRIVS; the supervisor stays root, so the command can
//     neither signal nor trace it nor evalgate, nor write what they own.
//   - evalgate makes itself non-dumpable before it starts the first command, so commands of
//     the same user (no User: a laptop) cannot read its memory or /proc/<pid>/environ.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Cmd is one user command. Set its fields before Start.
type Cmd struct {
	// Dir is the working directory ("" = evalgate's).
	Dir string
	// Env is what the caller adds to the allow-listed environment, as KEY=value; a later entry
	// wins over an earlier one and over the inherited value.
	Env []string
	// Stdin, Stdout and Stderr are as in exec.Cmd. With Keep, Stdout and Stderr may still be
	// written to after Wait until Stop, by what the command left running.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Grace is how long the command and its descendants have between SIGTERM and SIGKILL when
	// the context ends, and how long output pipes are waited for once everything has exited.
	Grace time.Duration
	// Keep leaves what a successful command started running (a setup hook's service) until
	// Stop. Without it, or when the command fails or is stopped, every descendant is killed
	// as soon as the command exits.
	Keep bool
	// User is who the command runs as: nil is evalgate's own user; otherwise the command
	// drops to it (no supplementary groups, no new privileges) while its supervisor stays
	// evalgate's, and it gets the user's HOME and TMPDIR.
	User *User

	ctx     context.Context
	path    string
	args    []string
	lookErr error
	bare    bool // path was looked up in PATH

	mu        sync.Mutex
	exited    bool          // Wait has the command's exit status
	cancelled bool          // ctx ended before that, and the command was told to stop
	exitc     chan struct{} // closed when exited is set
	sys       *sysCmd       // the platform's state
}

// State is how a command ended.
type State struct {
	// Code is the exit code, or -1 when a signal ended the command.
	Code int
	// Signal is the signal that ended the command; 0 when it exited.
	Signal syscall.Signal
	// Lingered is set when the command exited leaving descendants running, or holding its
	// output open. They were killed, unless Keep left them to Stop.
	Lingered bool
}

// Exited reports whether the command exited on its own rather than by a signal.
func (s *State) Exited() bool { return s.Signal == 0 }

// Command returns a Cmd that runs name with args; a name without a slash is looked up in
// PATH, as exec.Command does. When ctx ends before the command exits, the command and every
// descendant get SIGTERM, and SIGKILL Grace later.
func Command(ctx context.Context, name string, args ...string) *Cmd {
	c := &Cmd{ctx: ctx, path: name, args: append([]string{name}, args...), exitc: make(chan struct{})}
	if filepath.Base(name) == name {
		c.path, c.lookErr = exec.LookPath(name)
		c.bare = true
	}
	return c
}

// Start starts the command. Its errors read as exec's ("fork/exec PATH: …"), and a missing
// directory as "chdir DIR: …".
func (c *Cmd) Start() error {
	if c.bare && c.User != nil {
		// What evalgate (root) finds first may be in a directory the user cannot enter.
		c.path, c.lookErr = c.User.lookPath(c.args[0])
	}
	if c.lookErr != nil {
		return c.lookErr
	}
	if c.sys != nil {
		return errors.New("proc: already started")
	}
	if err := c.ctx.Err(); err != nil {
		return err
	}
	// exec would blame a missing directory on the program ("fork/exec …: no such file").
	if c.Dir != "" {
		if fi, err := os.Stat(c.Dir); err != nil {
			return &os.PathError{Op: "chdir", Path: c.Dir, Err: errors.Unwrap(err)}
		} else if !fi.IsDir() {
			return &os.PathError{Op: "chdir", Path: c.Dir, Err: syscall.ENOTDIR}
		}
	}
	hardenOnce.Do(harden)
	if err := c.start(); err != nil {
		return err
	}
	go c.watch()
	return nil
}

// Wait waits for the command to exit and returns how it ended. Unless Keep left descendants
// running, they are dead and the output is complete when it returns. When ctx ended first, it
// returns ctx's cause along with the state.
func (c *Cmd) Wait() (*State, error) {
	if c.sys == nil {
		return nil, errors.New("proc: not started")
	}
	st, err := c.wait()
	cancelled := c.markExited()
	if err != nil {
		c.Stop()
		return st, err
	}
	if cancelled {
		return st, context.Cause(c.ctx)
	}
	return st, nil
}

// markExited records that the command's exit status is known, so that ctx ending from now on
// stops nothing, and reports whether ctx had already ended and stopped it.
func (c *Cmd) markExited() (cancelled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.exited {
		c.exited = true
		close(c.exitc)
	}
	return c.cancelled
}

// Run starts the command and waits for it.
func (c *Cmd) Run() (*State, error) {
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c.Wait()
}

// Stop ends what a command run with Keep left running — SIGTERM, then SIGKILL Grace later —
// and waits for it. It does nothing when nothing was left; calling it again is harmless.
func (c *Cmd) Stop() {
	if c.sys != nil {
		c.stop()
	}
}

// watch tells the command to stop when ctx ends before it exits.
func (c *Cmd) watch() {
	select {
	case <-c.exitc:
	case <-c.ctx.Done():
		c.mu.Lock()
		if c.exited {
			c.mu.Unlock()
			return
		}
		c.cancelled = true
		c.mu.Unlock()
		c.terminate()
	}
}

// hardenOnce makes evalgate non-dumpable once, before the first user command starts.
var hardenOnce sync.Once

// Harden makes evalgate non-dumpable now: main calls it before anything starts a child, so
// no process of the same user — a command, or anything that outlived one — can read its
// memory or /proc/<pid>/environ, where the job's secrets are. Start does it too.
func Harden() { hardenOnce.Do(harden) }

// String says how the command ended: "exited with code N" or "killed by signal S".
func (s *State) String() string {
	if s.Exited() {
		return fmt.Sprintf("exited with code %d", s.Code)
	}
	return fmt.Sprintf("killed by signal %s", s.Signal)
}

// stateOf reads a wait status.
func stateOf(ws syscall.WaitStatus) *State {
	if ws.Signaled() {
		return &State{Code: -1, Signal: ws.Signal()}
	}
	return &State{Code: ws.ExitStatus()}
}
