package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// ReadIndex reads an AgentV index.jsonl (agentv.md §6.2; AgentV's or the one WriteIndex
// writes) into a run, so `evalgate compare` measures AgentV runs with the gate's statistics.
// The mapping inverts WriteIndex's:
//
//   - a row is a test of its suite (suites in the order they first appear); when a suite's rows
//     name several targets its tests are matrix tests (id@target), so each target pairs with itself;
//     a later row for the same suite, test and target replaces an earlier one (a rerun);
//   - the verdict is metadata.evalgate_verdict when evalgate wrote the row, else
//     execution_status: ok → pass, quality_failure → fail, execution_error → error;
//   - scores[] are the graders (scores[].scores their members); an llm-grader's assertions
//     are its criteria, the id from evalgate's "[id] outcome" text, else the text itself;
//   - trials[] and aggregation.strategy are the test's trials.
//
// A row without a numeric score is refused, as AgentV's reader refuses it; camelCase aliases
// of the older AgentV rows (testId, evalId, executionStatus) are read.
func ReadIndex(r io.Reader) (*result.Run, error) {
	sc := bufio.NewScanner(capped(r))
	sc.Buffer(make([]byte, 0, 64<<10), maxIndexLine)
	run := &result.Run{SchemaVersion: result.SchemaVersion, Thresholds: result.DefaultThresholds}
	suites := map[string]*result.SuiteResult{}
	type key struct{ suite, id, target string }
	seen := map[key]int{}
	targets := map[string]map[string]bool{} // per suite
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var row readRow
		if err := json.Unmarshal(b, &row); err != nil {
			return nil, fmt.Errorf("read index line %d: %w", line, err)
		}
		t, err := row.test()
		if err != nil {
			return nil, fmt.Errorf("read index line %d: %w", line, err)
		}
		s := suites[t.Suite]
		if s == nil {
			s = &result.SuiteResult{Name: t.Suite, Path: row.EvalPath}
			suites[t.Suite] = s
			run.Suites = append(run.Suites, s)
		}
		if targets[t.Suite] == nil {
			targets[t.Suite] = map[string]bool{}
		}
		targets[t.Suite][t.Target] = true
		k := key{t.Suite, t.ID, t.Target}
		if i, ok := seen[k]; ok {
			s.Tests[i] = t
			continue
		}
		seen[k] = len(s.Tests)
		s.Tests = append(s.Tests, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read index line %d: %w", line+1, err)
	}
	if len(run.Suites) == 0 {
		return nil, errors.New("read index: no rows")
	}
	for _, s := range run.Suites {
		n := len(targets[s.Name])
		for _, t := range s.Tests {
			t.Matrix = n > 1
		}
		if n == 1 {
			s.Target = s.Tests[0].Target
		}
	}
	return run, nil
}

// maxIndexLine bounds one row: AgentV rows carry judge requests and answers.
const maxIndexLine = 64 << 20

// readRow is an index.jsonl row as read: the fields WriteIndex writes (indexRow) and the
// aliases older AgentV rows use.
type readRow struct {
	TestID          string         `json:"test_id"`
	TestIDCamel     string         `json:"testId"`
	EvalID          string         `json:"eval_id"`
	EvalIDCamel     string         `json:"evalId"`
	Suite           string         `json:"suite"`
	Score           *float64       `json:"score"`
	Target          string         `json:"target"`
	TokenUsage      tokenUsage     `json:"token_usage"`
	CostUSD         float64        `json:"cost_usd"`
	DurationMS      int64          `json:"duration_ms"`
	Scores          []readScore    `json:"scores"`
	ExecutionStatus string         `json:"execution_status"`
	StatusCamel     string         `json:"executionStatus"`
	Error           string         `json:"error"`
	FailureStage    string         `json:"failure_stage"`
	EvalPath        string         `json:"eval_path"`
	Metadata        map[string]any `json:"metadata"`
	Trials          []indexTrial   `json:"trials"`
	Aggregation     map[string]any `json:"aggregation"`
}

type readScore struct {
	Name       string           `json:"name"`
	Type       string           `json:"type"`
	Score      float64          `json:"score"`
	Weight     *float64         `json:"weight"`
	Verdict    string           `json:"verdict"`
	Assertions []indexAssertion `json:"assertions"`
	Scores     []readScore      `json:"scores"`
	Details    map[string]any   `json:"details"`
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func (row *readRow) test() (*result.TestResult, error) {
	id := firstOf(row.TestID, row.TestIDCamel, row.EvalID, row.EvalIDCamel)
	if id == "" {
		return nil, errors.New("a row without test_id")
	}
	if row.Score == nil {
		return nil, fmt.Errorf("test %s: no numeric score", id)
	}
	t := &result.TestResult{
		Suite: row.Suite, ID: id, Score: finite(*row.Score), Target: row.Target, Error: row.Error,
		FailureStage: row.FailureStage, DurationMS: row.DurationMS, File: row.EvalPath,
		Usage: result.Usage{InputTokens: row.TokenUsage.Input, OutputTokens: row.TokenUsage.Output,
			CachedTokens: row.TokenUsage.Cached, CostUSD: finite(row.CostUSD)},
	}
	status := firstOf(row.ExecutionStatus, row.StatusCamel)
	t.Verdict = ownVerdict(row.Metadata)
	if t.Verdict == "" {
		switch status {
		case "ok":
			t.Verdict = result.Pass
		case "quality_failure":
			t.Verdict = result.Fail
		case "execution_error":
			t.Verdict = result.Error
		case "":
			t.Verdict = result.Fail
			if t.Score >= result.DefaultThresholds.Pass {
				t.Verdict = result.Pass
			}
		default:
			return nil, fmt.Errorf("test %s: unknown execution_status %q", id, status)
		}
	}
	if th, ok := row.Metadata["threshold"].(float64); ok {
		t.Threshold = th
	}
	for _, s := range row.Scores {
		t.Graders = append(t.Graders, s.grader(0))
	}
	if len(row.Trials) > 0 {
		t.Trials, t.TrialSummary = readTrials(row.Trials, row.Aggregation)
	}
	return t, nil
}

// ownVerdict is the verdict evalgate recorded in a row's metadata or details, "" when none
// (an AgentV row) or not one of evalgate's.
func ownVerdict(m map[string]any) result.Verdict {
	s, _ := m["evalgate_verdict"].(string)
	switch v := result.Verdict(s); v {
	case result.Pass, result.Borderline, result.Fail, result.Error, result.Skip:
		return v
	}
	return ""
}

// criterionID reads evalgate's "[id] outcome" assertion text.
var criterionID = regexp.MustCompile(`^\[([^\]\s]+)\] `)

func (s readScore) grader(depth int) *result.GraderResult {
	g := &result.GraderResult{Name: s.Name, Type: s.Type, Score: finite(s.Score), Weight: 1}
	if s.Weight != nil {
		g.Weight = finite(*s.Weight)
	}
	if t, ok := s.Details["evalgate_type"].(string); ok && t != "" {
		g.Type = t
	}
	if g.Verdict = ownVerdict(s.Details); g.Verdict == "" {
		switch s.Verdict {
		case "pass":
			g.Verdict = result.Pass
		case "skip":
			g.Verdict = result.Skip
		default:
			g.Verdict = result.Fail
		}
	}
	for _, a := range s.Assertions {
		g.Assertions = append(g.Assertions, result.Assertion{Text: a.Text, Passed: a.Passed, Evidence: a.Evidence})
	}
	// A judge's assertions are its criteria; another grader's describe its one check.
	if s.Type == "llm-grader" {
		for i, a := range s.Assertions {
			id := strings.TrimSpace(a.Text)
			if m := criterionID.FindStringSubmatch(a.Text); m != nil {
				id = m[1]
			} else if id == "" {
				id = fmt.Sprintf("assertion-%d", i+1)
			}
			c := &result.CriterionResult{ID: id, Outcome: a.Text, Weight: 1, Verdict: result.Fail, Reasoning: a.Evidence}
			if a.Passed {
				c.Score, c.Verdict = 1, result.Pass
			}
			g.Criteria = append(g.Criteria, c)
		}
	}
	if depth < 8 {
		for _, m := range s.Scores {
			g.Members = append(g.Members, m.grader(depth+1))
		}
	}
	return g
}

// readTrials turns index.jsonl trials back into a test's trials and their summary.
func readTrials(rows []indexTrial, agg map[string]any) ([]*result.TrialResult, *result.Trials) {
	sum := &result.Trials{Strategy: "pass_at_k", Count: len(rows), Ran: len(rows)}
	if s, ok := agg["strategy"].(string); ok && s != "" {
		sum.Strategy = s
	}
	var out []*result.TrialResult
	for i, r := range rows {
		tr := &result.TrialResult{Trial: i + 1, Score: finite(r.Score), Error: r.Error, CostUSD: finite(r.CostUSD), FailureStage: r.FailureStage}
		switch {
		case r.ExecutionStatus == "execution_error":
			tr.Verdict = result.Error
		case r.Verdict == "pass":
			tr.Verdict = result.Pass
			sum.Passed++
		default:
			tr.Verdict = result.Fail
		}
		out = append(out, tr)
	}
	return out, sum
}
