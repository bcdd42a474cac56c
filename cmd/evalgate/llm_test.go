package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/result"
)

var testIDRe = regexp.MustCompile(`Answer for ([a-z0-9-]+)`)

// vendor is a fake OpenAI (the target) and Anthropic (the judge) on one server. Every distinct
// request fails once — 429 with retry-after-ms, 503, a dropped connection or a truncated body,
// in turn — before it is answered, so each test's calls go through the retry layer.
func vendor(t *testing.T) *llmtest.Server {
	t.Helper()
	srv := llmtest.New(t)
	var mu sync.Mutex
	seen := map[string]int{}
	faults := []llmtest.Fault{{Status: 429, RetryAfterMS: "20"}, {Status: 503}, {Drop: true}, {Truncate: true}}
	srv.Faults = func(n int, r *llmtest.Request) *llmtest.Fault {
		mu.Lock()
		defer mu.Unlock()
		if r.API == "chat" && strings.Contains(r.LastUser(), "target-down") {
			return &llmtest.Fault{Status: 500}
		}
		key := r.API + string(r.Body)
		seen[key]++
		if seen[key] > 1 {
			return nil
		}
		f := faults[len(seen)%len(faults)]
		return &f
	}
	asked := map[string]int{}
	srv.Reply = func(r *llmtest.Request) llmtest.Reply {
		m := testIDRe.FindStringSubmatch(r.LastUser())
		if m == nil {
			return llmtest.Reply{Text: "no test id in the prompt"}
		}
		id := m[1]
		if r.API == "chat" {
			return llmtest.Reply{Text: "The answer for " + id, InputTokens: 100, OutputTokens: 20}
		}
		mu.Lock()
		asked[id]++
		n := asked[id]
		mu.Unlock()
		return llmtest.Reply{Text: judgeReply(id, n), InputTokens: 1000, OutputTokens: 80}
	}
	return srv
}

// judgeReply is the judge's n-th reply about a test: well-formed, or one of the shapes real
// judges produce.
func judgeReply(id string, n int) string {
	check := func(cid string, sat any) string {
		b, _ := json.Marshal(map[string]any{"id": cid, "satisfied": sat, "reasoning": "because"})
		return string(b)
	}
	both := `{"checks":[` + check("correct", true) + `,` + check("concise", true) + `],"overall_reasoning":"ok"}`
	switch {
	case id == "wrong-answer":
		return `{"checks":[` + check("correct", false) + `,` + check("concise", true) + `]}`
	case id == "prose-wrapped":
		return "Sure! Here is my grading:\n```json\n" + both + "\n```\nHope that helps."
	case id == "missing-then-complete" && n == 1:
		return `{"checks":[` + check("concise", true) + `]}`
	case id == "extra-and-wrong-types" && n == 1:
		return `{"checks":[` + check("correct", "maybe") + `,` + check("concise", 3) + `,` + check("bogus", true) + `]}`
	case id == "extra-and-wrong-types":
		return `{"checks":[` + check("correct", "yes") + `,` + check("concise", true) + `,` + check("bogus", false) + `]}`
	case id == "judge-empty":
		return ""
	}
	return both
}

func runJSON(t *testing.T, env map[string]string, args ...string) (int, *result.Run, string) {
	t.Helper()
	code, stdout, stderr := invokeEnv(t, env, append([]string{"run", "--format", "json", "--root", "testdata/llm", "--allow-env", "FAKE_URL"}, args...)...)
	var run result.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatalf("exit %d, stdout not JSON: %v\n%s\n%s", code, err, stdout, stderr)
	}
	return code, &run, stderr
}

func TestLLMTargetAndJudgeOnAFlakyVendor(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	code, run, stderr := runJSON(t, map[string]string{"FAKE_URL": srv.URL}, "--no-cache", "--workers", "8", "testdata/llm/evals/faults.eval.yaml")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a fail and errors)\n%s", code, stderr)
	}
	want := map[string]result.Verdict{"wrong-answer": result.Fail, "judge-empty": result.Error, "target-down": result.Error}
	tests := run.Suites[0].Tests
	if len(tests) != 14 {
		t.Fatalf("%d results, want all 14 tests", len(tests))
	}
	for _, tr := range tests {
		v, ok := want[tr.ID]
		if !ok {
			v = result.Pass
		}
		if tr.Verdict != v {
			t.Errorf("%s: %s (%s), want %s", tr.ID, tr.Verdict, tr.Error+graderErrors(tr), v)
		}
	}
	byID := map[string]*result.TestResult{}
	for _, tr := range tests {
		byID[tr.ID] = tr
	}
	if e := byID["target-down"].Error; !strings.Contains(e, "openai gpt-4o-mini: HTTP 500 after 4 attempt(s)") {
		t.Errorf("target-down error = %q", e)
	}
	if tr := byID["judge-empty"]; tr.Graders[0].Verdict != result.Error || graderErrors(tr) == "" {
		t.Errorf("judge-empty = %+v", tr.Graders[0])
	}
	// Every distinct request failed once before it was answered.
	if srv.Count() < 2*srv.Served() {
		t.Errorf("%d calls for %d answers: the faults were not injected", srv.Count(), srv.Served())
	}
	if s := run.Summary; s.Usage.Judge == nil || s.Usage.Judge.CostUSD <= 0 || s.Usage.CostUSD <= s.Usage.Judge.CostUSD || s.Usage.Calls == 0 {
		t.Errorf("usage = %+v (judge %+v): want target and judge cost, split", s.Usage, s.Usage.Judge)
	}
	for _, c := range srv.Calls() {
		if c.API == "anthropic" && (!c.Schema || c.Temperature == nil || *c.Temperature != 0) {
			t.Errorf("judge call without a schema or at temperature %v", c.Temperature)
			break
		}
	}
}

func graderErrors(tr *result.TestResult) string {
	var b strings.Builder
	for _, g := range tr.Graders {
		b.WriteString(g.Error)
		for _, c := range g.Criteria {
			if c.Error != "" {
				fmt.Fprintf(&b, " %s: %s", c.ID, c.Error)
			}
		}
	}
	return b.String()
}

func TestUnchangedRerunMakesNoCalls(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	env := map[string]string{"FAKE_URL": srv.URL}
	cacheDir := filepath.Join(t.TempDir(), "cache")
	code, first, stderr := runJSON(t, env, "--cache-dir", cacheDir, "testdata/llm/evals/clean.eval.yaml")
	if code != 0 {
		t.Fatalf("first run exit %d\n%s", code, stderr)
	}
	calls := srv.Count()
	code, second, stderr := runJSON(t, env, "--cache-dir", cacheDir, "testdata/llm/evals/clean.eval.yaml")
	if code != 0 {
		t.Fatalf("second run exit %d\n%s", code, stderr)
	}
	if n := srv.Count() - calls; n != 0 {
		t.Errorf("the unchanged re-run made %d calls, want 0", n)
	}
	if second.Summary.Usage.Calls != 0 || second.Summary.Usage.CostUSD != 0 || first.Summary.Usage.Calls == 0 {
		t.Errorf("usage first %+v, second %+v", first.Summary.Usage, second.Summary.Usage)
	}
	if first.Summary.Passed != 6 || second.Summary.Passed != 6 {
		t.Errorf("passed %d then %d, want 6 and 6", first.Summary.Passed, second.Summary.Passed)
	}
}

func TestBudgetStopsDispatching(t *testing.T) {
	t.Parallel()
	srv := vendor(t)
	code, run, stderr := runJSON(t, map[string]string{"FAKE_URL": srv.URL}, "--no-cache", "--workers", "1", "--budget-usd", "0.000001",
		"testdata/llm/evals/clean.eval.yaml")
	if code != 1 {
		t.Fatalf("exit %d, want 1: tests not run must not pass the gate\n%s", code, stderr)
	}
	b := run.Budget
	if b == nil || b.NotRun != 5 || b.SpentUSD <= b.LimitUSD {
		t.Fatalf("budget = %+v, want 5 tests not run", b)
	}
	for _, tr := range run.Suites[0].Tests[1:] {
		if tr.Verdict != result.Skip || !strings.Contains(tr.Error, "budget") {
			t.Errorf("%s: %s %q", tr.ID, tr.Verdict, tr.Error)
		}
	}
}
