// Package cli runs an agent as a command (AgentV's cli provider): the command template gets
// the prompt and an output file, the agent's answer and tool calls come from that file (or its
// stdout) in the target's output_format, and a timeout or cancellation kills the agent's whole
// process group. An optional healthcheck runs once before the target's first test.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/internal/toolcall"
)

// Limits on what an agent can make evalgate hold.
const (
	// maxOutput caps captured stdout and stderr each; the rest is drained and dropped so the
	// agent never blocks on a full pipe.
	maxOutput = 8 << 20
	// defaultTimeout bounds one agent run (timeout_seconds overrides it).
	defaultTimeout = 5 * time.Minute
	// killGrace is how long the process group has between SIGTERM and SIGKILL.
	killGrace = 2 * time.Second
)

var placeholders = map[string]bool{"PROMPT": true, "PROMPT_FILE": true, "OUTPUT_FILE": true, "FILES": true, "EVAL_ID": true, "ATTEMPT": true}

var placeholder = regexp.MustCompile(`\{([A-Z_]+)\}`)

// errEmptyAnswer is returned when the agent produced neither text nor tool calls.
var errEmptyAnswer = errors.New("agent returned an empty answer")

// errTooBig is an answer larger than maxOutput: evalgate will not grade a cut answer.
var errTooBig = errors.New("answer is larger than 8 MiB")

// errLingering is an agent that exited with processes it started still running, in a suite
// whose execution.background_processes is error.
var errLingering = errors.New("left background processes running after it exited (evalgate killed them)")

// noteLingering is the note on a test whose agent left background processes (a language
// server, a build daemon): they were killed, and the test is graded all the same.
const noteLingering = "the agent left background processes running after it exited; evalgate killed them"

// backgroundError is the execution.background_processes value that makes leaving background
// processes an error of the test.
const backgroundError = "error"

// Target runs a command per test.
type Target struct {
	name    string
	command string
	timeout time.Duration
	cwd     string
	env     []string
	// format is the output_format the agent's output is parsed as.
	format string
	// health is the healthcheck run before the first test; nil when none is configured.
	health *healthcheck
}

var _ target.Target = (*Target)(nil)

// New builds a cli target from a targets.yaml entry, checking the command's placeholders.
func New(cfg *suite.TargetConfig) (*Target, error) {
	cmd, _ := cfg.Settings["command"].(string)
	// An unset ${{ VAR }} would leave a hole in the command (`python ${{ AGENT }}/run.py`
	// becomes `python /run.py`); it is refused, as in base_url.
	if v, ok := cfg.Unset["command"]; ok {
		return nil, fmt.Errorf("cli target %s: command: ${{ %s }} is not set (set the %s environment variable)", cfg.Name, v, v)
	}
	if strings.TrimSpace(cmd) == "" {
		return nil, fmt.Errorf("cli target %s: command is required", cfg.Name)
	}
	for _, m := range placeholder.FindAllStringSubmatch(cmd, -1) {
		if !placeholders[m[1]] {
			return nil, fmt.Errorf("cli target %s: unknown placeholder {%s} (use PROMPT, PROMPT_FILE, OUTPUT_FILE, FILES, EVAL_ID or ATTEMPT)", cfg.Name, m[1])
		}
	}
	t := &Target{name: cfg.Name, command: cmd, timeout: defaultTimeout, cwd: cfg.Dir, format: toolcall.AgentV}
	if s, ok := number(cfg.Settings["timeout_seconds"]); ok && s > 0 {
		t.timeout = time.Duration(s * float64(time.Second))
	}
	if c, ok := cfg.Settings["cwd"].(string); ok && c != "" {
		if !filepath.IsAbs(c) {
			c = filepath.Join(cfg.Dir, c)
		}
		t.cwd = c
	}
	if env, ok := cfg.Settings["env"].(map[string]any); ok {
		for k, v := range env {
			t.env = append(t.env, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if f, ok := cfg.Settings["output_format"]; ok {
		s, _ := f.(string)
		if !toolcall.Valid(s) {
			return nil, fmt.Errorf("cli target %s: output_format %v is not one of %s", cfg.Name, f, strings.Join(toolcall.Formats, ", "))
		}
		t.format = s
	}
	h, err := parseHealthcheck(cfg.Settings["healthcheck"], cfg.Dir, t.timeout)
	if err != nil {
		return nil, fmt.Errorf("cli target %s: %w", cfg.Name, err)
	}
	t.health = h
	return t, nil
}

// Run starts the agent for one test and reads its answer. The healthcheck, if any, runs
// before the first test; once it has failed every test fails with its error.
func (t *Target) Run(ctx context.Context, req *target.Request) (*result.Output, error) {
	if err := t.health.check(ctx, t, req.User); err != nil {
		return nil, fmt.Errorf("cli target %s: %w", t.name, err)
	}
	tmp, files, err := scratch(req)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", t.name, err)
	}
	defer os.RemoveAll(tmp)
	defer files.Close()
	promptFile, outputFile := filepath.Join(tmp, "prompt.md"), filepath.Join(tmp, "output.json")
	usesOutput := strings.Contains(t.command, "{OUTPUT_FILE}")
	command := t.render(req, promptFile, outputFile)
	cwd := t.cwd
	if req.Workspace != "" {
		cwd = req.Workspace
	}
	start := time.Now()
	res, err := t.exec(ctx, command, cwd, t.timeout, req.User)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", t.name, err)
	}
	stdout, stderr := res.stdout, res.stderr
	if res.lingered && req.Suite != nil && req.Suite.BackgroundProcesses == backgroundError {
		return nil, fmt.Errorf("agent %s %w", t.name, errLingering)
	}
	if req.Workspace != "" {
		if _, err := os.Stat(req.Workspace); err != nil {
			return nil, fmt.Errorf("agent %s deleted its workspace %s", t.name, req.Workspace)
		}
	}
	raw := stdout
	if usesOutput {
		b, err := readCapped(files, "output.json")
		if err != nil {
			if errors.Is(err, errTooBig) {
				return nil, fmt.Errorf("agent %s: output file: %w", t.name, err)
			}
			return nil, fmt.Errorf("agent %s wrote no output file: %w (stderr: %s)", t.name, err, tail(stderr))
		}
		raw = b
	} else if res.dropped > 0 {
		// stdout is the answer here: grading its first 8 MiB would grade something the agent
		// did not say.
		return nil, fmt.Errorf("agent %s: stdout: %w (%d bytes more)", t.name, errTooBig, res.dropped)
	}
	out, err := toolcall.Parse(t.format, raw)
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", t.name, err)
	}
	// An agent that only used tools (edited files, say) or answered with files still has
	// something to grade.
	if strings.TrimSpace(out.Answer) == "" && len(out.ToolCalls) == 0 && !answersWithFiles(out) {
		return nil, fmt.Errorf("cli target %s: %w", t.name, errEmptyAnswer)
	}
	if out.DurationMS == 0 {
		out.DurationMS = time.Since(start).Milliseconds()
	}
	out.Workspace = req.Workspace
	if res.lingered {
		out.Notes = append(out.Notes, noteLingering)
	}
	if out.Dir, err = filepath.Abs(cwd); err != nil {
		out.Dir = cwd
	}
	return out, nil
}

// answersWithFiles reports whether the agent's messages hold file blocks.
func answersWithFiles(out *result.Output) bool {
	for _, m := range out.Messages {
		if len(m.Blocks) > 0 {
			return true
		}
	}
	return false
}

// render substitutes the placeholders, each shell-quoted.
func (t *Target) render(req *target.Request, promptFile, outputFile string) string {
	var files []string
	if req.Test != nil {
		files = req.Test.InputFiles
	}
	quotedFiles := make([]string, len(files))
	for i, f := range files {
		quotedFiles[i] = quote(f)
	}
	id := ""
	if req.Test != nil {
		id = req.Test.ID
	}
	values := map[string]string{
		"PROMPT": quote(req.Prompt), "PROMPT_FILE": quote(promptFile), "OUTPUT_FILE": quote(outputFile),
		"FILES": strings.Join(quotedFiles, " "), "EVAL_ID": quote(id), "ATTEMPT": quote(fmt.Sprint(max(req.Attempt, 1))),
	}
	return placeholder.ReplaceAllStringFunc(t.command, func(m string) string {
		return values[m[1:len(m)-1]]
	})
}

// quote makes s one shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// exec runs the command contained (see package proc): with the allow-listed environment plus
// the target's env, and on timeout or cancellation every process it started gets SIGTERM then
// SIGKILL. After a normal exit whatever it left running is killed too, so nothing the agent
// started — even detached with setsid — outlives its test.
func (t *Target) exec(ctx context.Context, command, cwd string, timeout time.Duration, user *proc.User) (*execResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := proc.Command(ctx, "sh", "-c", command)
	cmd.Dir, cmd.Env, cmd.Grace, cmd.User = cwd, t.env, killGrace, user
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	st, err := cmd.Wait()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("timed out after %s; killed its process group", timeout)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	case !st.Exited() || st.Code != 0:
		return nil, fmt.Errorf("%s: %s", st, tail(stderr.Bytes()))
	}
	// Children the agent left running (a language server, a build daemon) are dead by now;
	// the test notes them, and fails for them only when its suite asks.
	return &execResult{stdout: stdout.Bytes(), stderr: stderr.Bytes(), dropped: stdout.dropped, lingered: st.Lingered}, nil
}

// execResult is what an agent run left: its output, how much stdout the cap dropped, and
// whether it left processes behind.
type execResult struct {
	stdout, stderr []byte
	dropped        int
	lingered       bool
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
