package proc

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The argv[0] values that turn this binary, whatever it is (evalgate, or a test binary that
// imports this package), into a supervisor instead of running its main.
const (
	// supervisorArg0 runs one user command: argv is grace, keep (0|1), the user to run it as
	// (UID:GID, or - for the supervisor's own), path, then the command's argv. It reports on
	// fd 3.
	supervisorArg0 = "evalgate-supervise"
	// initArg0 runs a command as init would (see initMain); evalgate does it when it is PID 1.
	// The name lets tests exercise that mode without a PID namespace.
	initArg0 = "evalgate-init"
)

// Limits of the supervisor's own work.
const (
	// settle is how long descendants still running when the command exits get to finish on
	// their own before they count as left behind: one that is exiting right then is not.
	settle = 50 * time.Millisecond
	// killBudget bounds the rounds of SIGKILL that end a process tree.
	killBudget = 5 * time.Second
)

// init turns the process into a supervisor when argv[0] says so. Supervisors leave with
// syscall.Exit: they have nothing to flush, and os.Exit in a race-detector build (the tests)
// would first sleep a second.
func init() {
	switch {
	case len(os.Args) > 1 && os.Args[0] == supervisorArg0:
		syscall.Exit(superviseMain(os.Args[1:]))
	case len(os.Args) > 2 && os.Args[0] == initArg0:
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			syscall.Exit(127)
		}
		syscall.Exit(initMain(os.Args[1], os.Args[2:]))
	case os.Getpid() == 1:
		// PID 1 in a container inherits every orphan of the container and must reap them,
		// which evalgate's own code cannot do without racing os/exec for its children's exit
		// statuses. So PID 1 becomes a tiny init, and evalgate runs as its child. If that
		// cannot start, evalgate runs as PID 1 as before.
		if code := initMain("/proc/self/exe", os.Args); code >= 0 {
			syscall.Exit(code)
		}
	}
}

// superviseMain is the supervisor's main: it reports to evalgate on fd 3 (see cmd_linux.go)
// and returns the supervisor's exit code.
func superviseMain(args []string) int {
	status := os.NewFile(3, "status")
	syscall.CloseOnExec(3) // the command must not inherit it
	if len(args) < 5 {
		fmt.Fprintln(status, "error supervisor: bad arguments")
		return 2
	}
	grace, err := time.ParseDuration(args[0])
	if err != nil {
		fmt.Fprintf(status, "error supervisor: grace: %v\n", err)
		return 2
	}
	// Anything the command starts, however it detaches, is re-parented here instead of init.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(status, "error supervisor: PR_SET_CHILD_SUBREAPER: %v\n", err)
		return 2
	}
	// Other commands of the same user (another test's agent) must not trace this process.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	s := newSupervisor(grace)
	s.keep = args[1] == "1"
	s.status = status
	if args[2] != "-" {
		var uid, gid uint32
		if _, err := fmt.Sscanf(args[2], "%d:%d", &uid, &gid); err != nil {
			fmt.Fprintf(status, "error supervisor: user %q: %v\n", args[2], err)
			return 2
		}
		// Inherited by the command: nothing it execs (a setuid binary, file capabilities)
		// gains a privilege. The supervisor execs nothing itself.
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			fmt.Fprintf(status, "error supervisor: PR_SET_NO_NEW_PRIVS: %v\n", err)
			return 2
		}
		s.cred = &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
	}
	return s.run(args[3], args[4:])
}

// initMain runs path as PID 1's only child: termination signals are passed on to it, every
// orphan is reaped, and when it exits what is left is killed and its exit code returned
// (128+n for signal n). It returns -1 when the child cannot start.
func initMain(path string, argv []string) int {
	// PID 1 holds the whole job environment (every secret): no process of the same user may
	// read its /proc/1/environ or memory, from the first child on.
	harden()
	s := newSupervisor(0)
	s.forward = true
	return s.run(path, argv)
}

// supervisor runs one command and owns every process it starts. All its work happens on one
// goroutine: a child's pid is only reaped there, so a pid seen as an unreaped child stays that
// child until then and can be signalled without hitting a process that reused the pid.
type supervisor struct {
	grace   time.Duration
	keep    bool                // leave a successful command's leftovers until told to stop
	forward bool                // init mode: termination signals go to the command, not the whole tree
	status  *os.File            // reports to evalgate; nil in init mode
	cred    *syscall.Credential // who the command runs as; nil = the supervisor's user
	sigs    chan os.Signal
	self    int

	cmd     int // the command's pid
	done    bool
	ws      syscall.WaitStatus
	stopped bool // a termination signal arrived
}

func newSupervisor(grace time.Duration) *supervisor {
	s := &supervisor{grace: grace, sigs: make(chan os.Signal, 64), self: os.Getpid()}
	signal.Notify(s.sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	return s
}

func (s *supervisor) report(format string, args ...any) {
	if s.status != nil {
		fmt.Fprintf(s.status, format+"\n", args...)
	}
}

func (s *supervisor) run(path string, argv []string) int {
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		// The command leads its own group, as without a supervisor; in init mode it stays in
		// ours, so a terminal's Ctrl-C reaches it.
		Sys: &syscall.SysProcAttr{Setpgid: !s.forward, Credential: s.cred},
	})
	if err != nil {
		if s.forward {
			signal.Stop(s.sigs)
			return -1
		}
		s.report("error fork/exec %s: %v", path, err)
		return 0
	}
	s.cmd = pid
	s.report("started %d", pid)

	var killAt time.Time // when a command asked to stop gets SIGKILL
	for s.reap(); !s.done; s.reap() {
		wait := time.Duration(-1)
		if !killAt.IsZero() {
			wait = max(time.Until(killAt), 0)
		}
		sig := s.await(wait)
		switch {
		case sig == syscall.SIGCHLD:
		case sig != nil && s.forward:
			_ = syscall.Kill(s.cmd, sig.(syscall.Signal))
		case sig != nil:
			if killAt.IsZero() {
				s.signalAll(syscall.SIGTERM)
				killAt = time.Now().Add(s.grace)
			}
		default: // grace is over
			s.signalAll(syscall.SIGKILL)
			killAt = time.Now().Add(10 * time.Millisecond)
		}
	}

	st := stateOf(s.ws)
	if s.forward {
		s.killAll()
		if !st.Exited() {
			return 128 + int(st.Signal)
		}
		return st.Code
	}
	lingered := !s.stopped && s.lingering()
	kept := s.keep && lingered && st.Code == 0 && !s.stopped
	s.report("exit %d %d %t %t", st.Code, int(st.Signal), lingered, kept)
	if kept {
		s.hold()
	}
	s.killAll()
	return 0
}

// reap collects every child that has exited, noting the command's status, and reports whether
// any child is left.
func (s *supervisor) reap() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG|syscall.WALL, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return false // ECHILD: nothing left
		case pid == 0:
			return true
		case pid == s.cmd:
			s.done, s.ws = true, ws
		}
	}
}

// await waits up to d (d < 0: for ever) for a signal; nil means the time ran out. A
// termination signal is noted in s.stopped.
func (s *supervisor) await(d time.Duration) os.Signal {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case sig := <-s.sigs:
		if sig != syscall.SIGCHLD {
			s.stopped = true
		}
		return sig
	case <-timeout:
		return nil
	}
}

// lingering reports whether descendants are still running after the command exited, once
// they have had settle to finish.
func (s *supervisor) lingering() bool {
	deadline := time.Now().Add(settle)
	for s.reap() {
		if !s.anyAlive() {
			return false
		}
		left := time.Until(deadline)
		if left <= 0 {
			return true
		}
		s.await(min(left, 10*time.Millisecond))
	}
	return false
}

// hold keeps what a successful command left running until evalgate says stop (or it has all
// exited), then gives it grace to stop on SIGTERM.
func (s *supervisor) hold() {
	for !s.stopped {
		if !s.reap() {
			return
		}
		s.await(-1)
	}
	s.signalAll(syscall.SIGTERM)
	deadline := time.Now().Add(s.grace)
	for s.reap() && time.Now().Before(deadline) {
		s.await(min(time.Until(deadline), 50*time.Millisecond))
	}
}

// killAll SIGKILLs the tree in rounds until no child is left: killing a child re-parents its
// own children here, where the next round finds them.
func (s *supervisor) killAll() {
	deadline := time.Now().Add(killBudget)
	for s.reap() && time.Now().Before(deadline) {
		s.signalAll(syscall.SIGKILL)
		s.await(5 * time.Millisecond)
	}
}

// signalAll sends sig to every live child and to the process group each of them leads. A
// group led by an unreaped child cannot be another's: its id is that child's pid.
func (s *supervisor) signalAll(sig syscall.Signal) {
	for _, c := range children(s.self) {
		if c.zombie {
			continue
		}
		if c.pgid == c.pid {
			_ = syscall.Kill(-c.pid, sig)
		}
		_ = syscall.Kill(c.pid, sig)
	}
}

// anyAlive reports whether a child is still running.
func (s *supervisor) anyAlive() bool {
	for _, c := range children(s.self) {
		if !c.zombie {
			return true
		}
	}
	return false
}
