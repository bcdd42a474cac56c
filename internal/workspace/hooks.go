package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/suite"
)

// stage names when a workspace hook runs.
type stage string

// The four hook stages, spelled as in the suite file.
const (
	beforeAll  stage = "before_all"
	beforeEach stage = "before_each"
	afterEach  stage = "after_each"
	afterAll   stage = "after_all"
)

// Default hook timeouts, as AgentV: setup gets a minute, teardown half of that.
const (
	defaultSetupTimeout    = 60 * time.Second
	defaultTeardownTimeout = 30 * time.Second
)

// maxHookOutput is how much of a hook's stdout and of its stderr is kept (the last bytes).
const maxHookOutput = 64 << 10

// hookGrace is how long a stopped hook's processes have between SIGTERM and SIGKILL.
const hookGrace = 2 * time.Second

// hookInput is the JSON a hook reads on stdin, AgentV's shape. Suite-level hooks (before_all,
// after_all) have no test, so TestID, CaseInput and CaseMetadata are left out of their JSON.
type hookInput struct {
	WorkspacePath string         `json:"workspace_path"`
	TestID        string         `json:"test_id,omitempty"`
	EvalRunID     string         `json:"eval_run_id"`
	CaseInput     any            `json:"case_input,omitempty"`
	CaseMetadata  map[string]any `json:"case_metadata,omitempty"`
}

// timeout is the hook's own limit: timeout_ms when set, else the stage default.
func (s stage) timeout(h *suite.Hook) time.Duration {
	switch {
	case h.TimeoutMS > 0:
		return time.Duration(h.TimeoutMS) * time.Millisecond
	case s == beforeAll || s == beforeEach:
		return defaultSetupTimeout
	default:
		return defaultTeardownTimeout
	}
}

// runHook runs one hook's command for stage in the workspace dir. Its cwd is h.Cwd resolved
// against h.Dir (the directory of the file the hook is written in, as in AgentV), or h.Dir, or
// dir when h.Dir is not set; stdin is in as JSON (workspace_path defaults to dir); the
// arguments' {{workspace_path}}, {{test_id}}, {{eval_run_id}}, {{case_input}} and
// {{case_metadata}} are replaced as AgentV replaces them; and the environment is the
// allow-listed one of package proc plus AGENTV_WORKSPACE_PATH. The hook runs contained: on
// timeout or cancellation everything it started is killed. What a successful before_all or
// before_each leaves running (a service the tests use) is left to stop, which the caller calls
// when the suite or the test ends; whatever any other hook leaves is killed when it exits.
// stop is never nil, and calling it again is harmless. A hook's reset is not runHook's: see
// Manager.
func runHook(ctx context.Context, stage stage, h *suite.Hook, in hookInput, dir string, user *proc.User) (stop func(), err error) {
	stop = func() {}
	name := hookName(stage, h)
	if len(h.Command) == 0 || h.Command[0] == "" {
		return stop, fmt.Errorf("%s has no command", name)
	}
	if in.WorkspacePath == "" {
		in.WorkspacePath = dir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		return stop, fmt.Errorf("%s: encode stdin: %w", name, err)
	}
	cwd := dir
	if h.Dir != "" {
		cwd = h.Dir
	}
	if h.Cwd != "" {
		if filepath.IsAbs(h.Cwd) {
			cwd = h.Cwd
		} else {
			cwd = filepath.Join(cwd, h.Cwd)
		}
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return stop, fmt.Errorf("%s: cwd %s is not a directory", name, cwd)
	}
	argv := interpolate(h.Command, in)
	limit := stage.timeout(h)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	cmd := proc.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.User = cwd, user
	cmd.Env = []string{"AGENTV_WORKSPACE_PATH=" + dir}
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Grace = hookGrace
	cmd.Keep = stage == beforeAll || stage == beforeEach
	stdout, stderr := &tailBuffer{max: maxHookOutput}, &tailBuffer{max: maxHookOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	st, err := cmd.Run()
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return stop, fmt.Errorf("%s timed out after %s", name, limit)
	case err != nil && ctx.Err() != nil:
		return stop, fmt.Errorf("%s: %w", name, ctx.Err())
	case err != nil:
		return stop, fmt.Errorf("%s: %w", name, err)
	case !st.Exited():
		return stop, fmt.Errorf("%s was killed by signal %s: %s", name, st.Signal, output(stdout, stderr))
	case st.Code != 0:
		return stop, fmt.Errorf("%s exited %d: %s", name, st.Code, output(stdout, stderr))
	}
	return cmd.Stop, nil
}

// output is what explains a failed hook: its last words on stderr, else on stdout. (A failed
// hook's processes are all dead, so its output is complete.)
func output(stdout, stderr *tailBuffer) string {
	if out := tail(stderr.Bytes()); out != "" {
		return out
	}
	return tail(stdout.Bytes())
}

// hookName is how errors and warnings name a hook: "before_each hook (evals/x.yaml:12)".
func hookName(stage stage, h *suite.Hook) string {
	return fmt.Sprintf("%s hook%s", stage, at(h.Pos))
}

// at is where something is declared, for messages: " (evals/x.yaml:12)", or "" when unknown.
func at(pos suite.Pos) string {
	if pos.File == "" {
		return ""
	}
	pos.Col = 0
	return fmt.Sprintf(" (%s)", pos)
}

var hookVar = regexp.MustCompile(`\{\{(\w+)\}\}`)

// interpolate replaces AgentV's {{name}} placeholders in a hook's arguments; unknown names are
// left as written.
func interpolate(argv []string, in hookInput) []string {
	vars := map[string]string{
		"workspace_path": in.WorkspacePath,
		"test_id":        in.TestID,
		"eval_run_id":    in.EvalRunID,
		"case_input":     text(in.CaseInput),
		"case_metadata":  text(in.CaseMetadata),
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = hookVar.ReplaceAllStringFunc(a, func(m string) string {
			if v, ok := vars[m[2:len(m)-2]]; ok {
				return v
			}
			return m
		})
	}
	return out
}

// text is a value as a hook argument: a string as it is, nothing as "", anything else as JSON.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case map[string]any:
		if v == nil {
			return ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// Question is a test's input as AgentV hands it to hooks (case_input): the text of its
// messages, trimmed and joined by spaces.
func Question(msgs []suite.Message) string {
	var parts []string
	for _, m := range msgs {
		if t := strings.TrimSpace(m.Content); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}
