package reports

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// A conversation test (mode: conversation) is written as AgentV writes it: in index.jsonl its
// scores[] are one "turn-N" entry per turn, whose children are that turn's graders and whose
// assertions are theirs (a skipped turn says "Skipped due to previous turn failure", a turn the
// target failed "Provider error: …"), then a "conversation" entry for the graders of the whole
// transcript. In Markdown its details get one line of turn verdicts.

// maxTurnsShown bounds the turn line of a Markdown details section.
const maxTurnsShown = 30

// conversationScores renders t's turns as AgentV's scores[] entries.
func conversationScores(t *result.TestResult, th float64) []indexScore {
	out := []indexScore{}
	for _, tu := range t.Turns {
		if tu == nil {
			continue
		}
		sc := parentScore(fmt.Sprintf("turn-%d", tu.Turn), tu.Score, tu.Verdict, th, indexScores(tu.Graders, th, 1))
		sc.DurationMS = tu.DurationMS
		switch {
		case tu.Verdict == result.Skip:
			sc.Assertions = append(sc.Assertions, indexAssertion{Text: "Skipped due to previous turn failure", Evidence: tu.Error})
		case tu.FailureStage == result.StageAgent:
			sc.Assertions = append(sc.Assertions, indexAssertion{Text: "Provider error: " + tu.Error})
		}
		if tu.Error != "" {
			sc.Details["error"] = tu.Error
		}
		out = append(out, sc)
	}
	if t.ConversationScore != nil {
		v := result.Pass
		if *t.ConversationScore < th {
			v = result.Fail
		}
		out = append(out, parentScore("conversation", *t.ConversationScore, v, th, indexScores(t.Graders, th, 1)))
	}
	return out
}

// parentScore is an entry that groups children, with their assertions flattened into it.
func parentScore(name string, s float64, v result.Verdict, th float64, children []indexScore) indexScore {
	sc := indexScore{Name: name, Type: "llm-grader", Score: finite(s), Weight: 1, Verdict: agentvVerdict(v, s, th),
		Assertions: []indexAssertion{}, Details: map[string]any{"evalgate_verdict": string(v)}}
	if len(children) > 0 {
		sc.Scores = children
	}
	for _, c := range children {
		sc.Assertions = append(sc.Assertions, c.Assertions...)
	}
	return sc
}

// turnsLine is the Markdown summary of a conversation's turns: "1 ✅ 0.90 · 2 ❌ 0.40 · …".
func turnsLine(t *result.TestResult) string {
	var parts []string
	for i, tu := range t.Turns {
		if i == maxTurnsShown {
			parts = append(parts, fmt.Sprintf("… %d more", len(t.Turns)-i))
			break
		}
		if tu != nil {
			parts = append(parts, fmt.Sprintf("%d %s %s", tu.Turn, emoji(tu.Verdict), scoreOrDash(tu.Verdict, tu.Score)))
		}
	}
	return fmt.Sprintf("**Turns** (%s): %s", mdText(clip(t.Aggregation, 10)), strings.Join(parts, " · "))
}

// turnFailedAssertions are the failed assertions of every turn, each marked with its turn.
func turnFailedAssertions(t *result.TestResult) []result.Assertion {
	var out []result.Assertion
	for _, tu := range t.Turns {
		if tu == nil {
			continue
		}
		for _, a := range failedAssertions(tu.Graders, 0) {
			a.Text = fmt.Sprintf("turn %d: %s", tu.Turn, a.Text)
			out = append(out, a)
		}
	}
	return out
}
