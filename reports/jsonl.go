package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/result"
)

// index.jsonl is AgentV's run index (agentv.md §6.2): one JSON object per test, snake_case,
// numeric score, so `agentv compare` and AgentV's dashboards read an evalgate run. The mapping:
//
//   - execution_status: pass → "ok"; fail → "quality_failure"; error (or an unknown verdict) →
//     "execution_error"; borderline → "ok" only when its score reaches the test's threshold,
//     else "quality_failure" (AgentV counts anything under its threshold as a quality failure,
//     so in practice borderline is a quality failure). Skipped tests are not written: AgentV has
//     no row for a test that did not run, and a 0 score would read as a loss in compare.
//   - scores[].type: rubric graders (rubrics, likert) → "llm-grader", as AgentV writes them;
//     other types as evalgate normalised them.
//   - scores[].verdict: pass → "pass", fail and error → "fail", skip → "skip", borderline → "pass"
//     when the score reaches the test's threshold else "fail"; details.evalgate_verdict keeps
//     evalgate's own verdict and details.raw_scores the judge's integer scores per criterion.
//   - scores[].assertions: the grader's assertions. A judge grader's are its criteria, one
//     each, in AgentV's text ("[id] outcome", "[id] outcome - Score: 7/10 (band)"); a result
//     that carries criteria but no assertions (written by hand, or by an older evalgate) gets
//     one per criterion from them instead. Never both: that would list each criterion twice.

type indexRow struct {
	Timestamp       string         `json:"timestamp"`
	TestID          string         `json:"test_id"`
	Suite           string         `json:"suite"`
	Score           float64        `json:"score"`
	Target          string         `json:"target"`
	TokenUsage      tokenUsage     `json:"token_usage"`
	CostUSD         float64        `json:"cost_usd"`
	DurationMS      int64          `json:"duration_ms"`
	StartTime       string         `json:"start_time,omitempty"`
	EndTime         string         `json:"end_time,omitempty"`
	Scores          []indexScore   `json:"scores"`
	ExecutionStatus string         `json:"execution_status"`
	Error           string         `json:"error,omitempty"`
	FailureStage    string         `json:"failure_stage,omitempty"`
	WorkspacePath   string         `json:"workspace_path,omitempty"`
	EvalPath        string         `json:"eval_path,omitempty"`
	Metadata        map[string]any `json:"metadata,omitempty"`
	// Trials, Aggregation and CostLimited are AgentV's fields of a test run more than once.
	Trials      []indexTrial   `json:"trials,omitempty"`
	Aggregation map[string]any `json:"aggregation,omitempty"`
	CostLimited bool           `json:"cost_limited,omitempty"`
}

type tokenUsage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Cached int64 `json:"cached"`
}

type indexScore struct {
	Name       string           `json:"name"`
	Type       string           `json:"type"`
	Score      float64          `json:"score"`
	Weight     float64          `json:"weight"`
	Verdict    string           `json:"verdict"`
	Assertions []indexAssertion `json:"assertions"`
	Scores     []indexScore     `json:"scores,omitempty"`
	Details    map[string]any   `json:"details,omitempty"`
	TokenUsage *tokenUsage      `json:"token_usage,omitempty"`
	DurationMS int64            `json:"duration_ms,omitempty"`
}

type indexAssertion struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence,omitempty"`
}

// isoTime formats t as JavaScript's toISOString does, "" for the zero time.
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// executionStatus maps a test verdict to AgentV's execution_status (see the file comment).
func executionStatus(t *result.TestResult, th float64) string {
	switch t.Verdict {
	case result.Pass:
		return "ok"
	case result.Fail:
		return "quality_failure"
	case result.Borderline:
		if finite(t.Score) >= th && th > 0 {
			return "ok"
		}
		return "quality_failure"
	}
	return "execution_error"
}

// agentvVerdict maps a grader verdict to AgentV's pass|fail|skip.
func agentvVerdict(v result.Verdict, s, th float64) string {
	switch v {
	case result.Pass:
		return "pass"
	case result.Skip:
		return "skip"
	case result.Borderline:
		if finite(s) >= th && th > 0 {
			return "pass"
		}
	}
	return "fail"
}

// agentvType maps an evalgate grader type to AgentV's name for it.
func agentvType(t string) string {
	t = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(t)), "_", "-")
	switch t {
	case "rubrics", "rubric", "likert", "rubric-eval", "llm-rubric", "llm-judge", "llm-grader":
		return "llm-grader"
	case "code-judge", "script", "code-grader":
		return "code-grader"
	case "":
		return "unknown"
	}
	return t
}

// WriteIndex writes run as AgentV index.jsonl rows, one per test that ran.
func WriteIndex(w io.Writer, run *result.Run) error {
	if run == nil {
		return nil
	}
	runTh := run.Thresholds.Pass
	if runTh <= 0 {
		runTh = result.DefaultThresholds.Pass
	}
	for _, s := range run.Suites {
		if s == nil {
			continue
		}
		for _, t := range s.Tests {
			if t == nil || t.Verdict == result.Skip {
				continue
			}
			b, err := json.Marshal(indexRowOf(run, s, t, runTh))
			if err != nil {
				return fmt.Errorf("index row %s/%s: %w", s.Name, t.ID, err)
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
	}
	return nil
}

func indexRowOf(run *result.Run, s *result.SuiteResult, t *result.TestResult, runTh float64) indexRow {
	th := t.Threshold
	if th <= 0 {
		th = runTh
	}
	end := run.FinishedAt
	if !t.StartedAt.IsZero() {
		end = t.StartedAt.Add(time.Duration(max(t.DurationMS, 0)) * time.Millisecond)
	}
	row := indexRow{
		Timestamp: isoTime(end), TestID: t.ID, Suite: orDefault(t.Suite, s.Name), Score: finite(t.Score),
		Target:     orDefault(t.Target, s.Target),
		TokenUsage: tokenUsage{Input: t.Usage.InputTokens, Output: t.Usage.OutputTokens, Cached: t.Usage.CachedTokens},
		CostUSD:    finite(t.Usage.CostUSD), DurationMS: t.DurationMS,
		StartTime: isoTime(t.StartedAt), EndTime: isoTime(end),
		ExecutionStatus: executionStatus(t, th), Error: t.Error, FailureStage: t.FailureStage,
		WorkspacePath: t.Workspace, EvalPath: orDefault(t.File, s.Path),
		Metadata: map[string]any{"evalgate_verdict": string(t.Verdict), "threshold": finite(th)},
	}
	if row.Timestamp == "" {
		row.Timestamp = isoTime(time.Unix(0, 0))
	}
	if len(t.Gates) > 0 {
		row.Metadata["gates"] = t.Gates
	}
	row.Scores = indexScores(t.Graders, th, 0)
	if t.TrialSummary != nil {
		row.Trials, row.Aggregation, row.CostLimited = indexTrials(t, th)
	}
	if len(t.Turns) > 0 {
		row.Scores = conversationScores(t, th)
		row.Metadata["aggregation"] = t.Aggregation
	}
	return row
}

func indexScores(gs []*result.GraderResult, th float64, depth int) []indexScore {
	out := []indexScore{}
	for _, g := range gs {
		if g == nil {
			continue
		}
		sc := indexScore{
			Name: orDefault(g.Name, g.Type), Type: agentvType(g.Type), Score: finite(g.Score),
			Weight: finite(g.Weight), Verdict: agentvVerdict(g.Verdict, g.Score, th),
			Assertions: []indexAssertion{}, DurationMS: g.DurationMS,
		}
		if u := g.Usage; u.InputTokens+u.OutputTokens+u.CachedTokens > 0 {
			sc.TokenUsage = &tokenUsage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedTokens}
		}
		sc.Details = map[string]any{}
		if len(g.Details) > 0 {
			if _, err := json.Marshal(g.Details); err == nil {
				maps.Copy(sc.Details, g.Details)
			} else {
				sc.Details["evalgate_details_error"] = err.Error()
			}
		}
		sc.Details["evalgate_verdict"] = string(g.Verdict)
		if g.Type != "" && sc.Type != g.Type {
			sc.Details["evalgate_type"] = g.Type
		}
		if g.Gated {
			sc.Details["gated"] = true
		}
		if g.Error != "" {
			sc.Details["error"] = g.Error
		}
		raw := map[string]int{}
		for _, c := range g.Criteria {
			if c != nil && c.Raw != nil {
				raw[c.ID] = *c.Raw
			}
		}
		if len(raw) > 0 {
			sc.Details["raw_scores"] = raw
		}
		for _, a := range g.Assertions {
			sc.Assertions = append(sc.Assertions, indexAssertion(a))
		}
		if len(g.Assertions) == 0 {
			sc.Assertions = append(sc.Assertions, criterionAssertions(g.Criteria)...)
		}
		if depth < maxDepth && len(g.Members) > 0 {
			sc.Scores = indexScores(g.Members, th, depth+1)
		}
		out = append(out, sc)
	}
	return out
}

// criterionAssertions renders criteria as assertions, for results whose grader recorded none.
func criterionAssertions(cs []*result.CriterionResult) []indexAssertion {
	var out []indexAssertion
	for _, c := range cs {
		if c == nil {
			continue
		}
		text := "[" + c.ID + "]"
		if c.Outcome != "" {
			text += " " + c.Outcome
		}
		ev := c.Reasoning
		if c.Error != "" {
			ev = strings.TrimSpace("error: " + c.Error + " " + ev)
		}
		out = append(out, indexAssertion{Text: text, Passed: c.Verdict == result.Pass, Evidence: ev})
	}
	return out
}
