package grader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
)

// defaultCodeTimeout bounds a code grader run when its spec sets no timeout.
const defaultCodeTimeout = 60 * time.Second

const (
	// maxCodeOutput caps what is kept of a code grader's stdout and of its stderr.
	maxCodeOutput = 1 << 20
	// outputFileThreshold is the size of the JSON-encoded answer above which it is written to a
	// file (output_path) instead of inlined, as AgentV does.
	outputFileThreshold = 50_000
	// codeWaitDelay is how long a stopped grader's processes get between SIGTERM and SIGKILL,
	// and how long output held open by something it started is waited for.
	codeWaitDelay = 2 * time.Second
	// stderrTailChars is how much of stderr an error message quotes.
	stderrTailChars = 2000
)

// code runs a user command that grades the output (AgentV's code-grader wire contract): the
// test and output as pretty snake_case JSON on stdin, a JSON verdict (or plain text and an exit
// code) on stdout.
type code struct {
	spec    *suite.Grader
	timeout time.Duration
	// module is set for a custom assertion module: it must print its result (AgentV's SDK
	// always does), so silence is an error rather than the plain-text rule's pass.
	module bool
	// scripts is evalgate's copy of the repository's scripts (nil = run them where they are).
	scripts *Pristine
}

func newCode(spec *suite.Grader, deps Deps) (Grader, error) {
	if len(spec.Command) == 0 || spec.Command[0] == "" {
		return nil, errors.New("code-grader needs command")
	}
	timeout, err := codeTimeout(spec)
	if err != nil {
		return nil, err
	}
	// AgentV's target: true | {max_calls} gives the script a proxy to call the target with.
	// evalgate has none, and a script run without it would grade something other than what
	// its author wrote, so the grader reports the gap on every test instead.
	const noProxy = "code-grader target proxy is not supported"
	switch t := spec.Params["target"].(type) {
	case nil:
	case bool:
		if t {
			return unsupported(spec, deps, noProxy)
		}
	case map[string]any:
		return unsupported(spec, deps, noProxy)
	default:
		return nil, fmt.Errorf("target must be true or a mapping with max_calls, not %v", t)
	}
	return code{spec: spec, timeout: timeout, scripts: deps.Scripts}, nil
}

// codeTimeout reads timeout_seconds or timeout_ms from Params (where the loader keeps them),
// then from Config (a config: mapping may carry them too).
func codeTimeout(spec *suite.Grader) (time.Duration, error) {
	for _, p := range []params{spec.Params, spec.Config} {
		if s, ok, err := p.num("timeout_seconds"); err != nil {
			return 0, err
		} else if ok {
			if s <= 0 {
				return 0, fmt.Errorf("timeout_seconds must be positive, not %v", s)
			}
			return time.Duration(s * float64(time.Second)), nil
		}
		if ms, ok, err := p.num("timeout_ms"); err != nil {
			return 0, err
		} else if ok {
			if ms <= 0 {
				return 0, fmt.Errorf("timeout_ms must be positive, not %v", ms)
			}
			return time.Duration(ms * float64(time.Millisecond)), nil
		}
	}
	return defaultCodeTimeout, nil
}

func (g code) Grade(ctx context.Context, in *Input) *result.GraderResult {
	start := time.Now()
	r := g.grade(ctx, in)
	r.DurationMS = time.Since(start).Milliseconds()
	return negate(g.spec, r)
}

func (g code) grade(ctx context.Context, in *Input) *result.GraderResult {
	stdin, cleanup, err := codePayload(in, g.spec.Config)
	if err != nil {
		return errorResult(g.spec, fmt.Sprintf("%s: build stdin: %v", g.label(), err))
	}
	defer cleanup()
	run, err := g.run(ctx, in, stdin)
	if err != nil {
		return errorResult(g.spec, err.Error())
	}
	return g.interpret(run, in)
}

// label names the grader in messages.
func (g code) label() string {
	if g.module {
		return "custom assertion " + g.spec.Type
	}
	return "code grader"
}

// run executes the command in the grader's working directory.
func (g code) run(ctx context.Context, in *Input, stdin []byte) (*codeRun, error) {
	return runScript(ctx, g.label(), g.spec.Command, g.dir(in), stdin, g.timeout, workspaceOf(in), g.scripts, in.User)
}

// dir is the command's working directory: cwd relative to the eval file's directory, or that
// directory (AgentV's rule, so `./graders/check.sh` and `python graders/x.py` find their
// scripts). The directory is the suite's absolute Dir: its Path is relative to the repository
// root, which need not be the process's working directory.
func (g code) dir(in *Input) string {
	evalDir := suiteDir(in)
	switch {
	case g.spec.Cwd == "":
		return evalDir
	case filepath.IsAbs(g.spec.Cwd):
		return g.spec.Cwd
	default:
		return filepath.Join(evalDir, g.spec.Cwd)
	}
}

// suiteDir is the eval file's directory, "" when the input has no suite.
func suiteDir(in *Input) string {
	switch {
	case in.Suite == nil:
		return ""
	case in.Suite.Dir != "":
		return in.Suite.Dir
	case in.Suite.Path != "":
		// A suite not built by the loader has no Dir; its Path is all there is.
		return filepath.Dir(filepath.FromSlash(in.Suite.Path))
	}
	return ""
}

// interpret turns a finished run into a result, by AgentV's rules (§2.1), stricter where a
// mistake would read as a pass: unreadable JSON, a non-numeric score or one outside [0, 1] and
// an overflowing stdout are errors.
func (g code) interpret(run *codeRun, in *Input) *result.GraderResult {
	r := base(g.spec)
	if run.stdout.overflow {
		r.Verdict, r.Error = result.Error, fmt.Sprintf("%s wrote more than %d bytes to stdout", g.label(), maxCodeOutput)
		return r
	}
	stdout := strings.TrimSpace(run.stdout.String())
	looksJSON := strings.HasPrefix(stdout, "{") || strings.HasPrefix(stdout, "[")
	stderr := strings.TrimSpace(run.stderr.String())
	if run.exitCode != 0 && (looksJSON || stderr != "") {
		// The script signalled failure through the protocol or wrote an error: a quality
		// failure in AgentV (score 0, fail), not an execution error.
		msg := fmt.Sprintf("%s exited with code %d%s", g.label(), run.exitCode, stderrSuffix(stderr))
		r.Assertions = []result.Assertion{{Text: msg, Passed: false}}
		r.Error = msg
		binary(r, false)
		return r
	}
	if g.module && stdout == "" && run.exitCode == 0 {
		r.Verdict, r.Error = result.Error, fmt.Sprintf("%s printed nothing: the module must print its result on stdout (defineAssertion from @agentv/sdk does)", g.label())
		return r
	}
	if !looksJSON {
		ok := run.exitCode == 0
		text := stdout
		if text == "" {
			text = fmt.Sprintf("exit %d", run.exitCode)
		}
		r.Assertions = []result.Assertion{{Text: clip(text, 4000), Passed: ok}}
		binary(r, ok)
		return r
	}
	reply, err := parseCodeReply(stdout)
	if err != nil {
		r.Verdict, r.Error = result.Error, fmt.Sprintf("%s stdout: %v", g.label(), err)
		return r
	}
	r.Assertions, r.Details = reply.assertions, reply.details
	score := passedShare(reply.assertions)
	if reply.score != nil {
		score = *reply.score
	}
	scored(r, score, in)
	return r
}

// codeReply is a code grader's JSON verdict.
type codeReply struct {
	score      *float64
	assertions []result.Assertion
	details    map[string]any
}

func parseCodeReply(stdout string) (codeReply, error) {
	var reply codeReply
	var obj map[string]any
	if err := json.Unmarshal([]byte(stdout), &obj); err != nil {
		return reply, fmt.Errorf("not a JSON object: %w", err)
	}
	if obj == nil {
		return reply, errors.New("not a JSON object")
	}
	if v, ok := obj["score"]; ok && v != nil {
		s, isNum := v.(float64)
		if !isNum {
			return reply, fmt.Errorf("score must be a number, not %v", v)
		}
		if s < 0 || s > 1 {
			return reply, fmt.Errorf("score %v is outside [0, 1]", s)
		}
		reply.score = &s
	}
	list, _ := obj["assertions"].([]any)
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		text, ok := m["text"].(string)
		if !ok {
			continue // AgentV drops assertions without text
		}
		a := result.Assertion{Text: text, Passed: truthy(m["passed"])}
		a.Evidence, _ = m["evidence"].(string)
		reply.assertions = append(reply.assertions, a)
	}
	reply.details, _ = obj["details"].(map[string]any)
	return reply, nil
}

// truthy is JavaScript truthiness, which AgentV applies to "passed".
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// stderrSuffix is ": <stderr tail>", or "" for empty stderr.
func stderrSuffix(stderr string) string {
	stderr = strings.TrimSpace(stderr)
	if stderr == "" {
		return ""
	}
	if len(stderr) > stderrTailChars {
		stderr = "…" + strings.ToValidUTF8(safetext.TruncateStart(stderr, stderrTailChars), "")
	}
	return ": " + stderr
}
