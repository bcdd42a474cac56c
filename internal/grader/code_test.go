package grader

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// evalSuite places the eval file in testdata, so code graders run there by default.
var evalSuite = &suite.Suite{Name: "s", Path: "testdata/agent.eval.yaml"}

func codeSpec(argv ...string) *suite.Grader {
	s := spec("code-grader", nil)
	s.Command = argv
	return s
}

func TestCodeGraderReplies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		stdout  string
		exit    string
		stderr  string
		score   float64
		want    result.Verdict
		text    string // first assertion text, or the error when want is error
		details bool
	}{
		{"json score", `{"score": 0.9, "assertions": [{"text": "compiles", "passed": true, "evidence": "ok"}]}`, "0", "", 0.9, result.Pass, "compiles", false},
		{"json borderline", `{"score": 0.7}`, "0", "", 0.7, result.Borderline, "", false},
		{"score from assertions", `{"assertions": [{"text": "a", "passed": true}, {"text": "b", "passed": false}, {"text": "c", "passed": 1}, {"passed": true}]}`, "0", "", 2.0 / 3, result.Borderline, "a", false},
		{"no score no assertions", `{}`, "0", "", 0, result.Fail, "", false},
		{"details kept", `{"score": 1, "details": {"lines": 3}}`, "0", "", 1, result.Pass, "", true},
		{"plain text pass", "all good", "0", "", 1, result.Pass, "all good", false},
		{"plain text pass with stderr", "all good", "0", "warning: slow", 1, result.Pass, "all good", false},
		{"plain text fail", "2 tests failed", "1", "", 0, result.Fail, "2 tests failed", false},
		{"silent fail", "", "3", "", 0, result.Fail, "exit 3", false},
		{"exit with stderr", "partial", "2", "boom", 0, result.Fail, "code grader exited with code 2: boom", false},
		{"exit with json", `{"score": 1}`, "1", "", 0, result.Fail, "code grader exited with code 1", false},
		{"score above 1", `{"score": 7}`, "0", "", 0, result.Error, "score 7 is outside [0, 1]", false},
		{"score below 0", `{"score": -0.1}`, "0", "", 0, result.Error, "outside [0, 1]", false},
		{"score not a number", `{"score": "high"}`, "0", "", 0, result.Error, "score must be a number", false},
		{"broken json", `{"score": 1`, "0", "", 0, result.Error, "not a JSON object", false},
		{"json array", `[1, 2]`, "0", "", 0, result.Error, "not a JSON object", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := codeSpec("sh", "reply.sh", tt.stdout, tt.exit, tt.stderr)
			r := gradeIn(t, s, &Input{Suite: evalSuite, Output: &result.Output{Answer: "x"}})
			wantResult(t, r, tt.score, tt.want)
			switch {
			case tt.want == result.Error:
				if !strings.Contains(r.Error, tt.text) {
					t.Errorf("error %q, want %q", r.Error, tt.text)
				}
			case tt.text != "":
				if len(r.Assertions) == 0 || !strings.HasPrefix(r.Assertions[0].Text, tt.text) {
					t.Errorf("assertions %+v, want first %q", r.Assertions, tt.text)
				}
			}
			if tt.details && r.Details["lines"] != 3.0 {
				t.Errorf("details %v", r.Details)
			}
		})
	}
}

func TestCodeGraderStdin(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	test := &suite.Test{
		ID: "t1", Criteria: "adds subtract()",
		Input:          []suite.Message{{Role: "user", Content: "add subtract"}},
		ExpectedOutput: []suite.Message{{Role: "assistant", Content: "done"}},
		InputFiles:     []string{"evals/a.py"},
		Metadata:       map[string]any{"owner": "qa"},
	}
	out := &result.Output{
		Answer:      "I added <subtract> & tests",
		Messages:    []result.Message{{Role: "assistant", Content: "I added it"}},
		ToolCalls:   []result.ToolCall{{Tool: "Read", DurationMS: 5}, {Tool: "Read"}, {Tool: "Edit", Status: "error"}},
		FileChanges: "--- a/x\n+++ b/x\n",
		Usage:       result.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 2, CostUSD: 0.5, Calls: 2},
		DurationMS:  1500,
		Workspace:   ws,
	}
	s := codeSpec("sh", "dump.sh")
	s.Config = map[string]any{"strict": true}
	r := gradeIn(t, s, &Input{Suite: evalSuite, Test: test, Output: out})
	wantResult(t, r, 1, result.Pass)
	in, ok := r.Details["stdin"].(map[string]any)
	if !ok {
		t.Fatalf("details %v", r.Details)
	}
	want := map[string]any{
		"criteria":       "adds subtract()",
		"output":         "I added <subtract> & tests",
		"cost_usd":       0.5,
		"duration_ms":    1500.0,
		"file_changes":   "--- a/x\n+++ b/x\n",
		"workspace_path": ws,
	}
	for k, v := range want {
		if in[k] != v {
			t.Errorf("stdin %s = %#v, want %#v", k, in[k], v)
		}
	}
	if _, ok := in["output_path"]; ok {
		t.Error("small output sent by file")
	}
	if !equalJSON(in["config"], map[string]any{"strict": true}) || !equalJSON(in["metadata"], map[string]any{"owner": "qa"}) ||
		!equalJSON(in["input_files"], []any{"evals/a.py"}) || !equalJSON(in["token_usage"], map[string]any{"input": 10, "output": 5, "cached": 2}) {
		t.Errorf("stdin config/metadata/input_files/token_usage = %v %v %v %v", in["config"], in["metadata"], in["input_files"], in["token_usage"])
	}
	if !equalJSON(in["input"], []any{map[string]any{"role": "user", "content": "add subtract"}}) ||
		!equalJSON(in["expected_output"], []any{map[string]any{"role": "assistant", "content": "done"}}) ||
		!equalJSON(in["messages"], []any{map[string]any{"role": "assistant", "content": "I added it"}}) {
		t.Errorf("stdin input/expected_output/messages = %v %v %v", in["input"], in["expected_output"], in["messages"])
	}
	wantTrace := map[string]any{"event_count": 3, "tool_calls": map[string]any{"Read": 2, "Edit": 1}, "error_count": 1,
		"tool_durations": map[string]any{"Read": []any{5}}, "llm_call_count": 2}
	if !equalJSON(in["trace_summary"], wantTrace) {
		t.Errorf("trace_summary = %v, want %v", in["trace_summary"], wantTrace)
	}
	if r.Details["workspace_env"] != ws {
		t.Errorf("AGENTV_WORKSPACE_PATH = %v, want %s", r.Details["workspace_env"], ws)
	}
	if cwd, _ := filepath.Abs("testdata"); r.Details["cwd"] != cwd {
		t.Errorf("cwd = %v, want %s", r.Details["cwd"], cwd)
	}
}

func TestCodeGraderEmptyRun(t *testing.T) {
	t.Parallel()
	// No test data and no output: every field is present, null or empty, never missing.
	r := gradeIn(t, codeSpec("sh", "dump.sh"), &Input{Suite: evalSuite})
	wantResult(t, r, 1, result.Pass)
	in, _ := r.Details["stdin"].(map[string]any)
	for _, k := range []string{"criteria", "expected_output", "output", "messages", "input_files", "input", "metadata",
		"trace_summary", "token_usage", "cost_usd", "duration_ms", "file_changes", "workspace_path", "config"} {
		if _, ok := in[k]; !ok {
			t.Errorf("stdin lacks %s", k)
		}
	}
	if in["token_usage"] != nil || in["workspace_path"] != nil || r.Details["workspace_env"] != "" {
		t.Errorf("unknown data not null: %v", in)
	}
}

func TestCodeGraderLargeOutput(t *testing.T) {
	t.Parallel()
	answer := strings.Repeat("é", 30_000) // 60,000 bytes of JSON
	r := gradeIn(t, codeSpec("sh", "dump.sh"), &Input{Suite: evalSuite, Output: &result.Output{Answer: answer}})
	wantResult(t, r, 1, result.Pass)
	in, _ := r.Details["stdin"].(map[string]any)
	path, _ := in["output_path"].(string)
	if v, ok := in["output"]; !ok || v != nil || path == "" {
		t.Fatalf("output %v, output_path %q; want null and a file", v, path)
	}
	if got := r.Details["output_file_bytes"]; got != float64(len(answer)+2) {
		t.Errorf("output file holds %v bytes, want the JSON string's %d", got, len(answer)+2)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("output file %s left behind: %v", path, err)
	}
}

func TestCodeGraderCwd(t *testing.T) {
	t.Parallel()
	abs, _ := filepath.Abs("testdata")
	// Dir wins over Path, which is relative to a root that need not be the working directory;
	// a suite not built by the loader has only Path.
	withDir := &suite.Suite{Name: "s", Path: "elsewhere/agent.eval.yaml", Dir: abs}
	for _, s := range []*suite.Suite{evalSuite, withDir} {
		for _, cwd := range []string{"", ".", abs} {
			spec := codeSpec("sh", "dump.sh")
			spec.Cwd = cwd
			r := gradeIn(t, spec, &Input{Suite: s})
			if r.Details["cwd"] != abs {
				t.Errorf("suite dir %q path %q, cwd %q ran in %v, want %s", s.Dir, s.Path, cwd, r.Details["cwd"], abs)
			}
		}
	}
}

func TestCodeGraderTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target  any
		verdict result.Verdict
		err     string // a configuration error New reports
	}{
		{nil, result.Pass, ""},
		{false, result.Pass, ""}, // explicitly no proxy
		{true, result.Error, ""},
		{map[string]any{"max_calls": 3}, result.Error, ""},
		{"judge", "", "target must be true or a mapping with max_calls"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.target), func(t *testing.T) {
			t.Parallel()
			s := codeSpec("sh", "reply.sh", `{"score": 1}`)
			s.Params = map[string]any{"target": tt.target}
			if tt.err != "" {
				wantConfigError(t, s, tt.err)
				return
			}
			r := gradeIn(t, s, &Input{Suite: evalSuite})
			if r.Verdict != tt.verdict || (tt.verdict == result.Error && r.Error != "code-grader target proxy is not supported") {
				t.Errorf("verdict %s error %q, want %s", r.Verdict, r.Error, tt.verdict)
			}
		})
	}
}

func TestCodeGraderFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"missing command", []string{"./no-such-grader"}, "code grader: start ./no-such-grader"},
		{"missing script", []string{"sh", "no-such.sh"}, "code grader exited with code"},
		{"huge stdout", []string{"sh", "flood.sh"}, "more than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := gradeIn(t, codeSpec(tt.argv...), &Input{Suite: evalSuite})
			if r.Score != 0 || r.Verdict == result.Pass || !strings.Contains(r.Error, tt.want) {
				t.Errorf("verdict %s score %v error %q, want a failure saying %q", r.Verdict, r.Score, r.Error, tt.want)
			}
		})
	}
}

func TestCodeGraderTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := codeSpec("sh", "sleepy.sh", pidFile)
	s.Config = map[string]any{"timeout_ms": 300}
	start := time.Now()
	r := gradeIn(t, s, &Input{Suite: evalSuite})
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("timeout took %s", elapsed)
	}
	wantResult(t, r, 0, result.Error)
	if !strings.Contains(r.Error, "timed out after 300ms") {
		t.Errorf("error %q", r.Error)
	}
	wantGone(t, pidFile)
}

func TestCodeGraderLeftoverChildKilled(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := gradeIn(t, codeSpec("sh", "lingering.sh", pidFile), &Input{Suite: evalSuite})
	wantResult(t, r, 0.9, result.Pass)
	wantGone(t, pidFile)
}

// wantGone checks that the process whose pid is in pidFile no longer runs.
func wantGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("child pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("child pid %q: %v", data, err)
	}
	// The kill is asynchronous to our reading; give the kernel a moment.
	for i := 0; i < 50; i++ {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("child %d outlived the code grader", pid)
}

// alive reports whether pid runs. A zombie is dead: its reaper (init, in a container perhaps
// slow to reap) is not ours to wait for.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill
	}
	// The state follows the command name, which is in parentheses and may hold spaces.
	rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
	fields := strings.Fields(string(rest))
	return len(fields) == 0 || (fields[0] != "Z" && fields[0] != "X")
}

func TestCodeGraderNegate(t *testing.T) {
	t.Parallel()
	s := codeSpec("sh", "reply.sh", `{"score": 0.25}`)
	s.Negate = true
	wantResult(t, gradeIn(t, s, &Input{Suite: evalSuite}), 0.75, result.Pass)
	// An error stays an error when negated.
	s = codeSpec("sh", "reply.sh", `{"score": 2}`)
	s.Negate = true
	wantResult(t, gradeIn(t, s, &Input{Suite: evalSuite}), 0, result.Error)
	// A script that failed with a message (AgentV: score 0, fail) is an error when negated,
	// never a pass.
	s = codeSpec("sh", "reply.sh", "partial", "2", "boom")
	s.Negate = true
	wantResult(t, gradeIn(t, s, &Input{Suite: evalSuite}), 0, result.Error)
}

func TestCodeTimeoutConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params, config map[string]any
		want           time.Duration
		err            string
	}{
		{nil, nil, defaultCodeTimeout, ""},
		{map[string]any{"timeout_seconds": 5}, map[string]any{"timeout_ms": 1}, 5 * time.Second, ""},
		{nil, map[string]any{"timeout_seconds": 1.5}, 1500 * time.Millisecond, ""},
		{nil, map[string]any{"timeout_ms": 250}, 250 * time.Millisecond, ""},
		{map[string]any{"timeout_seconds": 0}, nil, 0, "must be positive"},
		{map[string]any{"timeout_seconds": "soon"}, nil, 0, "must be a number"},
	}
	for _, tt := range tests {
		s := codeSpec("true")
		s.Params, s.Config = tt.params, tt.config
		got, err := codeTimeout(s)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("codeTimeout(%v, %v) = %v, %v; want %v, %q", tt.params, tt.config, got, err, tt.want, tt.err)
		}
	}
	wantConfigError(t, codeSpec(), "needs command")
}

// loadCodeGrader writes a repository whose evals/sub/agent.eval.yaml holds one code grader
// (assertion, a YAML flow mapping) and scripts in evals/sub/graders, and loads it with the
// repository as root. The process's working directory stays this package's, as when
// evalgate runs from somewhere else than the eval file. It returns the grader's test input
// and the eval directory with symlinks resolved (as pwd -P prints it).
func loadCodeGrader(t *testing.T, assertion string) (*Input, *suite.Grader, string) {
	t.Helper()
	root := t.TempDir()
	evalDir := filepath.Join(root, "evals", "sub")
	files := map[string]string{
		"agent.eval.yaml":   "tests:\n  - id: t\n    input: hi\n    assertions:\n      - " + assertion + "\n",
		"graders/where.sh":  "#!/bin/sh\npwd -P\n",
		"graders/config.sh": "#!/bin/sh\nprintf '{\"score\": 1, \"details\": {\"stdin\": %s}}\\n' \"$(cat)\"\n",
	}
	for name, content := range files {
		p := filepath.Join(evalDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, diags := suite.Load(filepath.Join(evalDir, "agent.eval.yaml"), suite.LoadOptions{Root: root})
	if s == nil || diags.HasErrors() || len(s.Tests) != 1 || len(s.Tests[0].Graders) != 1 {
		t.Fatalf("load: %v %v", s, diags)
	}
	real, err := filepath.EvalSymlinks(evalDir)
	if err != nil {
		t.Fatal(err)
	}
	return &Input{Suite: s, Test: s.Tests[0]}, s.Tests[0].Graders[0], real
}

func TestCodeGraderLoaded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		assertion string
		verdict   result.Verdict
		// want is the first assertion's text (the script's stdout) or the error, with {dir}
		// standing for the eval directory.
		want  string
		check func(t *testing.T, r *result.GraderResult)
	}{
		{"relative script runs in the eval dir", "{type: code-grader, command: [./graders/where.sh]}", result.Pass, "{dir}", nil},
		{"shell command runs in the eval dir", "{type: code-grader, command: sh graders/where.sh}", result.Pass, "{dir}", nil},
		{"relative cwd is under the eval dir", "{type: code-grader, command: [./where.sh], cwd: graders}", result.Pass, "{dir}/graders", nil},
		{"timeout_ms honoured", "{type: code-grader, command: [sh, -c, 'sleep 5'], timeout_ms: 200}", result.Error, "timed out after 200ms", nil},
		{"timeout_seconds honoured", "{type: code-grader, command: [sh, -c, 'sleep 5'], timeout_seconds: 0.2}", result.Error, "timed out after 200ms", nil},
		{"target true refused", "{type: code-grader, command: [./graders/where.sh], target: true}", result.Error, "code-grader target proxy is not supported", nil},
		{"target max_calls refused", "{type: code-grader, command: [./graders/where.sh], target: {max_calls: 3}}", result.Error, "code-grader target proxy is not supported", nil},
		{"extra keys reach config", "{type: code-grader, command: [./graders/config.sh], language: python, threshold: 0.9, config: {strict: true, language: go}}", result.Pass, "",
			func(t *testing.T, r *result.GraderResult) {
				stdin, _ := r.Details["stdin"].(map[string]any)
				if want := map[string]any{"strict": true, "language": "go", "threshold": 0.9}; !equalJSON(stdin["config"], want) {
					t.Errorf("stdin config = %v, want %v", stdin["config"], want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, s, dir := loadCodeGrader(t, tt.assertion)
			r := gradeIn(t, s, in)
			if r.Verdict != tt.verdict {
				t.Fatalf("verdict %s, want %s (error %q, assertions %+v)", r.Verdict, tt.verdict, r.Error, r.Assertions)
			}
			want := strings.ReplaceAll(tt.want, "{dir}", dir)
			switch {
			case tt.verdict == result.Error && !strings.Contains(r.Error, want):
				t.Errorf("error %q, want %q", r.Error, want)
			case tt.verdict != result.Error && want != "" && (len(r.Assertions) == 0 || r.Assertions[0].Text != want):
				t.Errorf("assertions %+v, want %q", r.Assertions, want)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}
