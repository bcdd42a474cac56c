package grader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/evalgate/evalgate/internal/proc"
)

// codeRun is what a finished command produced.
type codeRun struct {
	stdout   *headBuffer
	stderr   *tailBuffer
	exitCode int
}

// runScript executes argv in dir in its own process group, with stdin, the process's
// environment and AGENTV_WORKSPACE_PATH when there is a workspace; what names the script in
// errors. On timeout or cancellation the whole group is killed, and so is anything the
// command leaves running when it exits: a grader has no business outliving its verdict.
func runScript(ctx context.Context, what string, argv []string, dir string, stdin []byte, timeout time.Duration, workspace string) (*codeRun, error) {
	errTimeout := fmt.Errorf("%s timed out after %s", what, timeout)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if workspace != "" {
		cmd.Env = append(cmd.Env, "AGENTV_WORKSPACE_PATH="+workspace)
	}
	cmd.Stdin = bytes.NewReader(stdin)
	run := &codeRun{stdout: &headBuffer{max: maxCodeOutput}, stderr: &tailBuffer{max: maxCodeOutput}}
	cmd.Stdout, cmd.Stderr = run.stdout, run.stderr
	proc.Group(cmd, codeWaitDelay)

	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", what, argv[0], err)
	}
	err := cmd.Wait()
	proc.Kill(cmd)
	ps := cmd.ProcessState
	// A command that exited on its own before the deadline is graded even if the context
	// ended while its output was being drained.
	if ctx.Err() != nil && (ps == nil || !ps.Exited()) {
		if cause := context.Cause(ctx); cause == errTimeout {
			return nil, errTimeout
		}
		return nil, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	var ee *exec.ExitError
	if ps == nil || (err != nil && !errors.Is(err, exec.ErrWaitDelay) && !errors.As(err, &ee)) {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, fmt.Errorf("%s was killed by signal %s%s", what, ws.Signal(), stderrSuffix(run.stderr.String()))
	}
	run.exitCode = ps.ExitCode()
	return run, nil
}

// workspaceOf is the test's workspace directory, "" when it ran without one.
func workspaceOf(in *Input) string {
	if in.Output == nil {
		return ""
	}
	return in.Output.Workspace
}

// onPath checks that a command named without a directory can be found, so a missing runtime
// is reported by name ("needs bun") rather than as a failed exec.
func onPath(name string) error {
	if strings.ContainsRune(name, filepath.Separator) {
		return nil
	}
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("needs %s (not found on PATH)", name)
	}
	return nil
}
