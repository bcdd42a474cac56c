// Package result is the results model of an evalgate run: what every test produced, how each
// grader and criterion scored, and the verdicts. It is plain data with stable JSON names (the
// results.json schema, versioned by SchemaVersion); the engine fills it, reports render it and
// publishing posts it. Nothing here computes a score: that is package rubric's job.
//
// The Go types are not public API; their JSON form is: a change to the JSON that breaks
// readers bumps SchemaVersion.
package result

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// SchemaVersion is the version of the results.json schema. Bump it on a breaking change.
const SchemaVersion = 1

// Verdict is the outcome of a test, grader or criterion.
type Verdict string

// Verdicts. Error means no result could be produced (target, judge or grader failed); it is
// never counted as a pass. Skip means the test was not run (budget spent, not selected).
const (
	Pass       Verdict = "pass"
	Borderline Verdict = "borderline"
	Fail       Verdict = "fail"
	Error      Verdict = "error"
	Skip       Verdict = "skip"
)

// Rank orders verdicts from best to worst, for "worst first" sorting and roll-ups.
func (v Verdict) Rank() int {
	switch v {
	case Pass:
		return 0
	case Skip:
		return 1
	case Borderline:
		return 2
	case Fail:
		return 3
	case Error:
		return 4
	}
	return 5
}

// Run is one evalgate run over one or more suites.
type Run struct {
	SchemaVersion int       `json:"schema_version"`
	StartedAt     time.Time `json:"started_at"`
	FinishedAt    time.Time `json:"finished_at"`
	// Thresholds are the run's default verdict thresholds.
	Thresholds Thresholds     `json:"thresholds"`
	Suites     []*SuiteResult `json:"suites"`
	Summary    Summary        `json:"summary"`
	// Context says where the run happened (repository, commit, PR, workflow run); optional.
	Context *Context `json:"context,omitempty"`
	// Shard is "i/n" when this run is one shard of a matrix.
	Shard string `json:"shard,omitempty"`
	// Budget is set when the run had a spending limit (--budget-usd).
	Budget *Budget `json:"budget,omitempty"`
	// Unselected are the suites the selection left out (a pull request that does not touch
	// them), with why; the comment names them so that nobody mistakes them for passing.
	Unselected []Unselected `json:"unselected,omitempty"`
}

// Unselected is a suite the run did not run because the change does not touch it.
type Unselected struct {
	Path string `json:"path"`
	Why  string `json:"why,omitempty"`
}

// Budget is a run's spending limit and what became of it. Tests not dispatched because the
// limit was reached are skipped with a reason; a run with NotRun > 0 never passes the gate,
// since those tests were not checked.
type Budget struct {
	LimitUSD float64 `json:"limit_usd"`
	SpentUSD float64 `json:"spent_usd"`
	// NotRun counts tests skipped because the budget was spent.
	NotRun int `json:"not_run"`
}

// Thresholds map a score to a verdict: pass ≥ Pass, borderline ≥ Borderline, else fail.
type Thresholds struct {
	Pass       float64 `json:"pass"`
	Borderline float64 `json:"borderline"`
}

// DefaultThresholds are the seeds' verdict bands.
var DefaultThresholds = Thresholds{Pass: 0.8, Borderline: 0.6}

// Context identifies the code a run graded.
type Context struct {
	Repository string `json:"repository,omitempty"` // owner/name
	SHA        string `json:"sha,omitempty"`        // the graded head commit
	Ref        string `json:"ref,omitempty"`
	PR         int    `json:"pr,omitempty"`
	RunURL     string `json:"run_url,omitempty"`   // the workflow run
	CheckURL   string `json:"check_url,omitempty"` // the check run, once created
	ReportURL  string `json:"report_url,omitempty"`
	Event      string `json:"event,omitempty"`
}

// Summary counts a run's (or suite's) tests by verdict.
type Summary struct {
	Total      int     `json:"total"`
	Passed     int     `json:"passed"`
	Borderline int     `json:"borderline"`
	Failed     int     `json:"failed"`
	Errors     int     `json:"errors"`
	Skipped    int     `json:"skipped"`
	Score      float64 `json:"score"` // mean score over tests that produced one (not error/skip)
	Verdict    Verdict `json:"verdict"`
	Usage      Usage   `json:"usage"`
	DurationMS int64   `json:"duration_ms"`
}

// SuiteResult is the outcome of one suite.
type SuiteResult struct {
	Name   string        `json:"name"`
	Path   string        `json:"path"`
	Format string        `json:"format,omitempty"`
	Target string        `json:"target,omitempty"`
	Tests  []*TestResult `json:"tests"`
	// Error is set when the suite could not be loaded or set up; its tests may be absent.
	Error   string  `json:"error,omitempty"`
	Summary Summary `json:"summary"`
	// Why says why the suite was selected on a pull request ("changed", "references x", …).
	Why string `json:"why,omitempty"`
}

// Failure stages, AgentV's vocabulary.
const (
	StageSetup     = "setup"
	StageAgent     = "agent"
	StageEvaluator = "evaluator"
	StageTeardown  = "teardown"
)

// TestResult is the outcome of one test.
type TestResult struct {
	Suite string `json:"suite"`
	ID    string `json:"id"`
	// Score is Σ wᵢ·sᵢ / Σ wᵢ over the graders; 0 when a required grader missed its minimum
	// (AgentV's rule); a failed required criterion leaves it unchanged.
	Score   float64 `json:"score"`
	Verdict Verdict `json:"verdict"`
	// Threshold is the pass threshold this test was judged against.
	Threshold float64 `json:"threshold"`
	// Gates lists why a required criterion or grader forced the test to fail.
	Gates []string `json:"gates,omitempty"`
	// Error says why no result could be produced; FailureStage where (setup, agent, evaluator).
	Error        string          `json:"error,omitempty"`
	FailureStage string          `json:"failure_stage,omitempty"`
	Graders      []*GraderResult `json:"graders"`
	Output       *Output         `json:"output,omitempty"`
	Target       string          `json:"target,omitempty"`
	// Matrix is true when the test ran once per target of an execution.targets matrix: its
	// rows share the ID and differ by Target.
	Matrix bool `json:"matrix,omitempty"`
	// Input is the question as sent to the target (rendered text).
	Input string `json:"input,omitempty"`
	// Criteria is the test's free-text goal.
	Criteria   string    `json:"criteria,omitempty"`
	File       string    `json:"file,omitempty"` // the eval file
	Line       int       `json:"line,omitempty"` // the test's line in it
	StartedAt  time.Time `json:"started_at"`
	DurationMS int64     `json:"duration_ms"`
	// Usage is the test's token use and cost, target and judge together.
	Usage Usage `json:"usage"`
	// Workspace is the kept workspace path, when one was kept.
	Workspace string `json:"workspace,omitempty"`
	// Turns are a conversation test's turns in order (mode: conversation), nil for any other
	// test. Its Score then combines the turn scores, and ConversationScore when its Graders
	// graded the whole transcript, by Aggregation.
	Turns []*TurnResult `json:"turns,omitempty"`
	// Aggregation is how a conversation test's score combines its turns: mean, min or max.
	Aggregation string `json:"aggregation,omitempty"`
	// ConversationScore is what the test's own graders gave the whole transcript of a
	// conversation test; nil when it has none.
	ConversationScore *float64 `json:"conversation_score,omitempty"`
	// Trials are every trial of a test run more than once, in order; nil for a single run.
	// The test's Score and Verdict then combine them by TrialSummary.Strategy, and its other
	// fields are the best trial's.
	Trials []*TrialResult `json:"trials,omitempty"`
	// TrialSummary is how the trials combined; nil for a single run.
	TrialSummary *Trials `json:"trial_summary,omitempty"`
	// Err is the error behind Error, for code that acts on its kind; never serialised.
	Err error `json:"-"`
}

// Label names the test in reports: its ID, with "@target" for a run of a target matrix (as
// AgentV labels them).
func (t *TestResult) Label() string {
	if t.Matrix && t.Target != "" {
		return t.ID + "@" + t.Target
	}
	return t.ID
}

// TurnResult is the outcome of one turn of a conversation test.
type TurnResult struct {
	// Turn is the 1-based turn number.
	Turn int `json:"turn"`
	// Input is the user message of the turn.
	Input string `json:"input"`
	// Score is Σ wᵢ·sᵢ / Σ wᵢ over the turn's graders (1 for a turn with nothing to grade, 0
	// for one that errored or was skipped).
	Score float64 `json:"score"`
	// Verdict is skip when an earlier turn failed under on_turn_failure: stop.
	Verdict Verdict  `json:"verdict"`
	Gates   []string `json:"gates,omitempty"`
	// Error says why the turn has no result; FailureStage where (agent, evaluator).
	Error        string          `json:"error,omitempty"`
	FailureStage string          `json:"failure_stage,omitempty"`
	Graders      []*GraderResult `json:"graders,omitempty"`
	// Output is the target's reply to this turn.
	Output     *Output `json:"output,omitempty"`
	Usage      Usage   `json:"usage"`
	DurationMS int64   `json:"duration_ms,omitempty"`
}

// GraderResult is the outcome of one grader on one test.
type GraderResult struct {
	Name    string  `json:"name"`
	Type    string  `json:"type"`
	Score   float64 `json:"score"`
	Weight  float64 `json:"weight"`
	Verdict Verdict `json:"verdict"`
	// Required and MinScore are the grader-level gate, as configured.
	Required bool     `json:"required,omitempty"`
	MinScore *float64 `json:"min_score,omitempty"`
	// Gated is true when this grader (or one of its required criteria) failed its gate.
	Gated bool `json:"gated,omitempty"`
	// Mode is the rubric mode (checklist, score_range, likert, freeform) of a judge grader.
	Mode       string             `json:"mode,omitempty"`
	Criteria   []*CriterionResult `json:"criteria,omitempty"`
	Assertions []Assertion        `json:"assertions,omitempty"`
	Reasoning  string             `json:"reasoning,omitempty"`
	Error      string             `json:"error,omitempty"`
	// Details carries grader-specific data (raw scores, Likert weighted score, …).
	Details map[string]any `json:"details,omitempty"`
	// Usage is the judge's token use for this grader.
	Usage      Usage  `json:"usage"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	File       string `json:"file,omitempty"`
	Line       int    `json:"line,omitempty"`
	// Members are a composite grader's member results.
	Members []*GraderResult `json:"members,omitempty"`
	// Err is the error behind Error, for code that acts on its kind; never serialised.
	Err error `json:"-"`
}

// CriterionResult is the judge's finding on one rubric criterion.
type CriterionResult struct {
	ID      string  `json:"id"`
	Outcome string  `json:"outcome,omitempty"`
	Weight  float64 `json:"weight"`
	// Required and MinScore are the criterion's gate, as configured.
	Required bool     `json:"required"`
	MinScore *float64 `json:"min_score,omitempty"`
	// Satisfied is the checklist answer; nil in range and Likert modes or on error.
	Satisfied *bool `json:"satisfied,omitempty"`
	// Raw is the judge's integer score (0–10 in range mode, the scale point in Likert mode).
	Raw *int `json:"raw,omitempty"`
	// Score is the normalised score in [0, 1] (checklist: 1 or 0).
	Score   float64 `json:"score"`
	Verdict Verdict `json:"verdict"`
	// Gated is true when this criterion's gate failed (it forces the test to fail).
	Gated bool `json:"gated,omitempty"`
	// Band is the outcome text of the score range (or Likert anchor) the raw score fell in.
	Band      string `json:"band,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Error     string `json:"error,omitempty"`
	// Agreement is set when the judge was sampled more than once.
	Agreement *Agreement `json:"agreement,omitempty"`
	File      string     `json:"file,omitempty"`
	Line      int        `json:"line,omitempty"`
}

// Agreement summarises k judge samples of one criterion.
type Agreement struct {
	Samples int `json:"samples"`
	// Ratio is the share of samples agreeing with the reported value (checklist majority).
	Ratio float64 `json:"ratio"`
	// Mean and Spread (max − min) of normalised scores, for range and Likert modes.
	Mean   float64 `json:"mean"`
	Spread float64 `json:"spread"`
	// Unstable is true when the samples disagree beyond tolerance.
	Unstable bool `json:"unstable,omitempty"`
	// Scores are the usable samples' normalised scores in [0, 1] (checklist 1 or 0), in
	// sample order; a baseline comparison runs its Welch interval over them.
	Scores []float64 `json:"scores,omitempty"`
}

// Assertion is one checked statement, AgentV's {text, passed, evidence}.
type Assertion struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence,omitempty"`
}

// Output is what the target produced for one test.
type Output struct {
	// Answer is the final answer text (the last assistant message).
	Answer string `json:"answer"`
	// Messages is the transcript, when the target reports one.
	Messages  []Message  `json:"messages,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// FileChanges is the unified diff of the workspace, at most MaxFileChangesBytes of it
	// (see BoundFileChanges); FileChangesBytes is the whole diff's size when it was cut.
	FileChanges      string `json:"file_changes,omitempty"`
	FileChangesBytes int    `json:"file_changes_bytes,omitempty"`
	Usage            Usage  `json:"usage"`
	DurationMS       int64  `json:"duration_ms,omitempty"`
	// Workspace is the directory the agent ran in (when one was used).
	Workspace string `json:"workspace,omitempty"`
	// Notes are what evalgate noticed running the agent that did not fail the test (the
	// background processes it killed).
	Notes []string `json:"notes,omitempty"`
	// Dir is where relative file paths in the answer are: the workspace, else the target's
	// working directory ("" = unknown). Machine-specific, so kept out of JSON.
	Dir string `json:"-"`
}

// Message is one transcript message.
type Message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Blocks are the content list as the agent wrote it, when it holds more than text (file
	// blocks, which content preprocessors turn into text for the judge); nil otherwise.
	Blocks []ContentBlock `json:"blocks,omitempty"`
}

// ContentBlock is one block of a content list: text, or a file the agent produced.
type ContentBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Path      string `json:"path,omitempty"`
	MediaType string `json:"media_type,omitempty"`
}

// ToolCall is one tool invocation by the agent, normalised across sources.
type ToolCall struct {
	ID   string `json:"id,omitempty"`
	Tool string `json:"tool"`
	// Input is the call's arguments (a JSON object, usually).
	Input any `json:"input,omitempty"`
	// Output is what the tool returned.
	Output     any    `json:"output,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	Status     string `json:"status,omitempty"`
}

// Usage is token use and cost. Cost is in US dollars; 0 when unknown.
type Usage struct {
	InputTokens  int64   `json:"input_tokens,omitempty"`
	OutputTokens int64   `json:"output_tokens,omitempty"`
	CachedTokens int64   `json:"cached_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	// Calls counts LLM requests actually sent (cache hits excluded).
	Calls int `json:"calls,omitempty"`
	// Judge is the judge's share of the totals above, when split.
	Judge *Usage `json:"judge,omitempty"`
}

// Add accumulates u2 into u (the Judge split included).
func (u *Usage) Add(u2 Usage) {
	u.InputTokens += u2.InputTokens
	u.OutputTokens += u2.OutputTokens
	u.CachedTokens += u2.CachedTokens
	u.CostUSD += u2.CostUSD
	u.Calls += u2.Calls
	if u2.Judge != nil {
		if u.Judge == nil {
			u.Judge = &Usage{}
		}
		u.Judge.Add(*u2.Judge)
	}
}

// MaxFileChangesBytes bounds the diff a result keeps. Graders see the whole diff; the result,
// held for the rest of the run and written to results.json, keeps its first 256 KiB, so a
// run's memory does not grow with the sum of its diffs.
const MaxFileChangesBytes = 256 << 10

// BoundFileChanges cuts o.FileChanges to at most limit bytes, at a line break, and ends it with
// a line saying so, and where the whole diff was kept when whole is not empty;
// FileChangesBytes records the whole diff's size. A diff within limit is left alone.
func (o *Output) BoundFileChanges(limit int, whole string) {
	if o == nil || len(o.FileChanges) <= limit {
		return
	}
	n := len(o.FileChanges)
	if whole != "" {
		whole = ": " + whole
	}
	note := fmt.Sprintf("\n[evalgate: file_changes cut to fit %d bytes; the whole diff was %d bytes%s]\n", limit, n, whole)
	keep := max(limit-len(note), 0)
	if i := strings.LastIndexByte(o.FileChanges[:keep], '\n'); i >= 0 {
		keep = i
	} else {
		// One long line: cut between characters, never inside one (result is a leaf package).
		for keep > 0 && !utf8.RuneStart(o.FileChanges[keep]) {
			keep--
		}
	}
	// The concatenation copies, so the whole diff is released rather than pinned by a substring.
	o.FileChanges = o.FileChanges[:keep] + note
	o.FileChangesBytes = n
}
