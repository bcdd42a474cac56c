package grader

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/result"
)

// defaultAggregatorPrompt is AgentV's prompt for an llm-grader aggregator without one.
const defaultAggregatorPrompt = `Review the following evaluation results:
{{EVALUATOR_RESULTS_JSON}}

Decide the final score and verdict based on all grader results.
Return a JSON object with: score (0.0-1.0), verdict (pass/fail), and reasoning.`

// memberScore is a member's result as AgentV hands it to an aggregator: its EvaluationScore,
// with AgentV's camelCase names, so aggregator scripts written for AgentV read it unchanged.
type memberScore struct {
	Score               float64            `json:"score"`
	Verdict             string             `json:"verdict"`
	Assertions          []result.Assertion `json:"assertions"`
	ExpectedAspectCount int                `json:"expectedAspectCount"`
	Scores              []childScore       `json:"scores,omitempty"`
	Details             map[string]any     `json:"details,omitempty"`
	TokenUsage          *codeTokens        `json:"tokenUsage,omitempty"`
}

// childScore is a nested composite's member (AgentV's ChildGraderResult).
type childScore struct {
	Name       string             `json:"name"`
	Type       string             `json:"type"`
	Score      float64            `json:"score"`
	Weight     float64            `json:"weight"`
	Verdict    string             `json:"verdict"`
	Assertions []result.Assertion `json:"assertions"`
	Scores     []childScore       `json:"scores,omitempty"`
	Details    map[string]any     `json:"details,omitempty"`
}

// agentvVerdict is AgentV's verdict for a result: it has no borderline, which is not a pass.
func agentvVerdict(v result.Verdict) string {
	switch v {
	case result.Pass, result.Skip:
		return string(v)
	}
	return "fail"
}

func assertionsOf(r *result.GraderResult) []result.Assertion {
	if r.Assertions == nil {
		return []result.Assertion{}
	}
	return r.Assertions
}

func children(ms []*result.GraderResult) []childScore {
	var out []childScore
	for _, m := range ms {
		out = append(out, childScore{Name: m.Name, Type: m.Type, Score: m.Score, Weight: m.Weight,
			Verdict: agentvVerdict(m.Verdict), Assertions: assertionsOf(m), Scores: children(m.Members), Details: m.Details})
	}
	return out
}

// memberResults are the members' results keyed by name; skipped members are included, as in
// AgentV. Aggregators get them pretty-printed, as JSON.stringify(…, null, 2) does.
func memberResults(ms []*result.GraderResult) map[string]memberScore {
	out := make(map[string]memberScore, len(ms))
	for _, m := range ms {
		s := memberScore{Score: m.Score, Verdict: agentvVerdict(m.Verdict), Assertions: assertionsOf(m),
			ExpectedAspectCount: max(len(m.Assertions), 1), Scores: children(m.Members), Details: m.Details}
		if u := m.Usage; u.InputTokens != 0 || u.OutputTokens != 0 || u.CachedTokens != 0 {
			s.TokenUsage = &codeTokens{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.CachedTokens}
		}
		out[m.Name] = s
	}
	return out
}

// byScript runs a code-grader aggregator: {"results": {member: score}} on stdin, in the eval
// file's directory through the shell (AgentV runs path as a shell command); the verdict is its
// stdout's JSON score, assertions and optional pass/fail verdict.
func (g *composite) byScript(ctx context.Context, r *result.GraderResult, in *Input) {
	r.Details = map[string]any{"aggregator": "code-grader", "script": g.script}
	stdin, err := json.MarshalIndent(map[string]any{"results": memberResults(r.Members)}, "", "  ")
	var run *codeRun
	if err == nil {
		run, err = runScript(ctx, "code aggregator", []string{"sh", "-c", g.script}, suiteDir(in), stdin, defaultCodeTimeout, workspaceOf(in), g.deps.Scripts, in.User)
	}
	if err != nil {
		r.Verdict, r.Error, r.Err = result.Error, err.Error(), err
		return
	}
	g.scriptVerdict(r, run, in)
}

// scriptVerdict reads a code aggregator's output. A non-zero exit fails the composite with the
// script's error, as in AgentV; output that is no JSON object, or a score that is not a number
// in [0, 1], is an error where AgentV would score 0, so a broken script is not mistaken for a
// quality failure.
func (g *composite) scriptVerdict(r *result.GraderResult, run *codeRun, in *Input) {
	const what = "code aggregator"
	if run.stdout.overflow {
		r.Verdict, r.Error = result.Error, fmt.Sprintf("%s wrote more than %d bytes to stdout", what, maxCodeOutput)
		return
	}
	if run.exitCode != 0 {
		msg := fmt.Sprintf("%s exited with code %d%s", what, run.exitCode, stderrSuffix(run.stderr.String()))
		r.Assertions = []result.Assertion{{Text: msg, Passed: false}}
		r.Error = msg
		binary(r, false)
		return
	}
	stdout := strings.TrimSpace(run.stdout.String())
	reply, err := parseCodeReply(stdout)
	if err != nil {
		r.Verdict, r.Error = result.Error, fmt.Sprintf("%s printed no JSON verdict (%v): %q", what, err, clip(stdout, 200))
		return
	}
	score := 0.0 // AgentV's score when the reply has none
	if reply.score != nil {
		score = *reply.score
	}
	r.Assertions = reply.assertions
	scored(r, score, in)
	var v struct {
		Verdict any `json:"verdict"`
	}
	_ = json.Unmarshal([]byte(stdout), &v) // parseCodeReply has read it as an object
	// The script's own pass or fail wins over the score, as in AgentV: it is the aggregation.
	switch v.Verdict {
	case "pass":
		r.Verdict = result.Pass
	case "fail":
		r.Verdict = result.Fail
	}
}

// byJudge runs an llm-grader aggregator: the prompt with the members' results in place of
// {{EVALUATOR_RESULTS_JSON}}, sent to the test's judge, whose freeform score is the verdict.
func (g *composite) byJudge(ctx context.Context, r *result.GraderResult, in *Input) {
	jd, err := g.deps.Judge("")
	if err != nil {
		r.Verdict, r.Error, r.Err = result.Error, err.Error(), err
		return
	}
	results, err := json.MarshalIndent(memberResults(r.Members), "", "  ")
	if err != nil {
		r.Verdict, r.Error, r.Err = result.Error, err.Error(), err
		return
	}
	prompt := g.prompt
	if prompt == "" {
		prompt = defaultAggregatorPrompt
	}
	tag := llm.Tag{Grader: g.spec.Name}
	if in.Test != nil {
		tag.TestID = in.Test.ID
	}
	if in.Suite != nil {
		tag.Suite = in.Suite.Name
	}
	jr := jd.Aggregate(ctx, g.spec, strings.ReplaceAll(prompt, "{{EVALUATOR_RESULTS_JSON}}", string(results)), tag, thresholds(in))
	r.Usage.Add(jr.Usage)
	r.Score, r.Verdict, r.Error, r.Err = jr.Score, jr.Verdict, jr.Error, jr.Err
	r.Assertions, r.Mode = jr.Assertions, jr.Mode
	r.Details = map[string]any{"aggregator": "llm-grader", "judge": jd.Name}
	if jr.Details != nil {
		r.Details["reply"] = jr.Details
	}
}
