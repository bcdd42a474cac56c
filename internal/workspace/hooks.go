package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/suite"
)

// Stage names when a workspace hook runs.
type Stage string

// The four hook stages, spelled as in the suite file.
const (
	BeforeAll  Stage = "before_all"
	BeforeEach Stage = "before_each"
	AfterEach  Stage = "after_each"
	AfterAll   Stage = "after_all"
)

// Default hook timeouts, as AgentV: setup gets a minute, teardown half of that.
const (
	DefaultSetupTimeout    = 60 * time.Second
	DefaultTeardownTimeout = 30 * time.Second
)

// MaxHookOutput is how much of a hook's stdout and of its stderr is kept (the last bytes).
const MaxHookOutput = 64 << 10

// hookGrace is how long a timed-out hook's process group has between SIGTERM and SIGKILL, and
// how long a finished hook's leftover children may hold its output pipes open.
const hookGrace = 2 * time.Second

// HookInput is the JSON a hook reads on stdin, AgentV's shape. Suite-level hooks (before_all,
// after_all) have no test, so TestID, CaseInput and CaseMetadata are left out of their JSON.
type HookInput struct {
	WorkspacePath string         `json:"workspace_path"`
	TestID        string         `json:"test_id,omitempty"`
	EvalRunID     string         `json:"eval_run_id"`
	CaseInput     any            `json:"case_input,omitempty"`
	CaseMetadata  map[string]any `json:"case_metadata,omitempty"`
}

// timeout is the hook's own limit: timeout_ms when set, else the stage default.
func (s Stage) timeout(h *suite.Hook) time.Duration {
	switch {
	case h.TimeoutMS > 0:
		return time.Duration(h.TimeoutMS) * time.Millisecond
	case s == BeforeAll || s == BeforeEach:
		return DefaultSetupTimeout
	default:
		return DefaultTeardownTimeout
	}
}

// RunHook runs one hook for stage in the workspace dir: cwd is h.Cwd (relative to dir) or dir,
// stdin is in as JSON (workspace_path defaults to dir), and the environment is evalgate's plus
// AGENTV_WORKSPACE_PATH. The hook runs in its own process group, and on timeout or cancellation
// the whole group is killed, so a hook cannot leave a runaway child behind. Children a hook
// leaves running after it exits normally are left alone (a before_all may start a service);
// they should redirect their output, as evalgate stops reading it hookGrace after the exit.
func RunHook(ctx context.Context, stage Stage, h *suite.Hook, in HookInput, dir string) error {
	name := hookName(stage, h)
	if len(h.Command) == 0 || h.Command[0] == "" {
		return fmt.Errorf("%s has no command", name)
	}
	if in.WorkspacePath == "" {
		in.WorkspacePath = dir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encode stdin: %w", name, err)
	}
	cwd := dir
	if h.Cwd != "" {
		cwd = h.Cwd
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(dir, cwd)
		}
	}
	// Checked here because exec reports a missing cwd as a missing program.
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: cwd %s is not a directory", name, cwd)
	}
	limit := stage.timeout(h)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	cmd := exec.CommandContext(ctx, h.Command[0], h.Command[1:]...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "AGENTV_WORKSPACE_PATH="+dir)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &tailBuffer{max: MaxHookOutput}, &tailBuffer{max: MaxHookOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	proc.Group(cmd, hookGrace)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := wait(ctx, cmd); err != nil {
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return fmt.Errorf("%s timed out after %s", name, limit)
		case ctx.Err() != nil:
			return fmt.Errorf("%s: %w", name, ctx.Err())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			out := tail(stderr.Bytes())
			if out == "" {
				out = tail(stdout.Bytes())
			}
			return fmt.Errorf("%s exited %d: %s", name, ee.ExitCode(), out)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// wait waits for a started hook. A hook that succeeded may leave children running — a
// before_all can start a service — so they are killed only when the hook was stopped.
func wait(ctx context.Context, cmd *exec.Cmd) error {
	err := cmd.Wait()
	if ctx.Err() != nil {
		proc.Kill(cmd)
		if err == nil || errors.Is(err, exec.ErrWaitDelay) {
			err = ctx.Err()
		}
		return err
	}
	// A child left running can hold the output pipes past the grace period; the hook itself
	// succeeded.
	if errors.Is(err, exec.ErrWaitDelay) {
		return nil
	}
	return err
}

// hookName is how errors and warnings name a hook: "before_each hook (evals/x.yaml:12)".
func hookName(stage Stage, h *suite.Hook) string {
	pos := h.Pos
	pos.Col = 0
	if pos.File == "" {
		return fmt.Sprintf("%s hook", stage)
	}
	return fmt.Sprintf("%s hook (%s)", stage, pos)
}
