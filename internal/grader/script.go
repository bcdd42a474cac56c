package grader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/proc"
)

// codeRun is what a finished command produced.
type codeRun struct {
	stdout   *headBuffer
	stderr   *tailBuffer
	exitCode int
}

// runScript runs a grader's script contained (see package proc): in dir, with the
// allow-listed environment plus AGENTV_WORKSPACE_PATH, stdin on its stdin, and on timeout,
// cancellation or exit everything it started is killed: a grader has no business outliving its
// verdict. what names it in errors ("code grader", "custom assertion x", "prompt template").
// With scripts, the repository scripts argv names run from evalgate's copy (see Pristine).
func runScript(ctx context.Context, what string, argv []string, dir string, stdin []byte, timeout time.Duration, workspace string, scripts *Pristine, user *proc.User) (*codeRun, error) {
	argv, err := scripts.argv(argv, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	errTimeout := fmt.Errorf("%s timed out after %s", what, timeout)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errTimeout)
	defer cancel()
	cmd := proc.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.User = dir, user
	if workspace != "" {
		cmd.Env = []string{"AGENTV_WORKSPACE_PATH=" + workspace}
	}
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Grace = codeWaitDelay
	run := &codeRun{stdout: &headBuffer{max: maxCodeOutput}, stderr: &tailBuffer{max: maxCodeOutput}}
	cmd.Stdout, cmd.Stderr = run.stdout, run.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", what, argv[0], err)
	}
	st, err := cmd.Wait()
	// A command that exited on its own before the deadline is graded even if the context
	// ended while its output was being drained.
	if ctx.Err() != nil && (st == nil || !st.Exited()) {
		if cause := context.Cause(ctx); errors.Is(cause, errTimeout) {
			return nil, errTimeout
		}
		return nil, fmt.Errorf("%s: %w", what, context.Cause(ctx))
	}
	if st == nil || (err != nil && ctx.Err() == nil) {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !st.Exited() {
		return nil, fmt.Errorf("%s was killed by signal %s%s", what, st.Signal, stderrSuffix(run.stderr.String()))
	}
	run.exitCode = st.Code
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
