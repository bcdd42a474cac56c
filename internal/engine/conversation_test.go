package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// chatTarget answers each turn with "re: <prompt>" and records what it was sent; a prompt
// "boom" fails.
type chatTarget struct {
	mu   sync.Mutex
	sent [][]suite.Message
	ids  []string
}

func (c *chatTarget) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	c.mu.Lock()
	c.sent = append(c.sent, append([]suite.Message(nil), req.Test.Input...))
	c.ids = append(c.ids, req.Test.ID)
	c.mu.Unlock()
	if req.Prompt == "boom" {
		return nil, errors.New("agent exited with code 2")
	}
	return &result.Output{Answer: "re: " + req.Prompt, Usage: result.Usage{InputTokens: 10}}, nil
}

// seenGrader scores its spec's Value and records the question and answer it graded.
type seenGrader struct {
	spec *suite.Grader
	seen *[]string
	mu   *sync.Mutex
}

func (g seenGrader) Grade(ctx context.Context, in *grader.Input) *result.GraderResult {
	g.mu.Lock()
	*g.seen = append(*g.seen, in.Test.ID+" | "+in.Test.Reference()+" | "+in.Output.Answer)
	g.mu.Unlock()
	return scoreGrader{spec: g.spec}.Grade(ctx, in)
}

func score(v float64) []*suite.Grader {
	return []*suite.Grader{{Name: "g", Type: "fake", Weight: 1, Value: v}}
}

func convSuite(c *suite.Conversation, graders ...*suite.Grader) *suite.Suite {
	return &suite.Suite{Name: "s", Tests: []*suite.Test{{
		ID:           "chat",
		Input:        []suite.Message{{Role: "system", Content: "Be brief."}},
		Conversation: c,
		Graders:      graders,
	}}}
}

func runConv(t *testing.T, s *suite.Suite) (*result.TestResult, *chatTarget, []string) {
	t.Helper()
	tg := &chatTarget{}
	var seen []string
	var mu sync.Mutex
	cfg := cfgFor(tg, 1)
	cfg.Grader = func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
		return seenGrader{spec: g, seen: &seen, mu: &mu}, nil
	}
	run, err := Run(t.Context(), []*suite.Suite{s}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return run.Suites[0].Tests[0], tg, seen
}

func turns(inputs ...string) []*suite.Turn {
	var out []*suite.Turn
	for _, in := range inputs {
		out = append(out, &suite.Turn{Input: in})
	}
	return out
}

func contents(ms []suite.Message) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, m.Role+":"+m.Content)
	}
	return strings.Join(parts, ",")
}

func TestConversationHistoryAndWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		window int
		third  string // what the third turn sends
	}{
		{"whole history", 0, "system:Be brief.,user:one,assistant:re: one,user:two,assistant:re: two,user:three"},
		// window_size 1: the system prompt and the last user/assistant pair (AgentV slices the
		// last 2·n non-system messages, the new user message included).
		{"window 1", 1, "system:Be brief.,assistant:re: two,user:three"},
		{"window 2", 2, "system:Be brief.,assistant:re: one,user:two,assistant:re: two,user:three"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &suite.Conversation{Turns: turns("one", "two", "three"), Aggregation: "mean", OnTurnFailure: "continue", WindowSize: tt.window}
			tr, tg, _ := runConv(t, convSuite(c))
			if len(tg.sent) != 3 {
				t.Fatalf("target called %d times", len(tg.sent))
			}
			if got := contents(tg.sent[0]); got != "system:Be brief.,user:one" {
				t.Errorf("first turn sent %q", got)
			}
			if got := contents(tg.sent[2]); got != tt.third {
				t.Errorf("third turn sent %q, want %q", got, tt.third)
			}
			if strings.Join(tg.ids, ",") != "chat/turn-1,chat/turn-2,chat/turn-3" {
				t.Errorf("turn ids %v", tg.ids)
			}
			// Turns with nothing to grade score 1, as in AgentV.
			if tr.Verdict != result.Pass || tr.Score != 1 || len(tr.Turns) != 3 || tr.Turns[2].Output.Answer != "re: three" {
				t.Errorf("result %+v", tr)
			}
			if tr.Output.Answer != "re: three" || len(tr.Output.Messages) != 7 || tr.Usage.InputTokens != 30 {
				t.Errorf("output %+v usage %+v", tr.Output, tr.Usage)
			}
		})
	}
}

func TestConversationAggregation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		how     string
		want    float64
		verdict result.Verdict
	}{
		{"mean", 0.7, result.Borderline},
		{"min", 0.4, result.Fail},
		{"max", 0.9, result.Pass},
	}
	for _, tt := range tests {
		t.Run(tt.how, func(t *testing.T) {
			t.Parallel()
			ts := turns("one", "two", "three")
			ts[0].Graders, ts[1].Graders, ts[2].Graders = score(0.9), score(0.4), score(0.8)
			c := &suite.Conversation{Turns: ts, Aggregation: tt.how, OnTurnFailure: "continue"}
			tr, tg, seen := runConv(t, convSuite(c))
			if len(tg.sent) != 3 {
				t.Errorf("continue ran %d turns, want 3", len(tg.sent))
			}
			if fmt.Sprintf("%.4f", tr.Score) != fmt.Sprintf("%.4f", tt.want) || tr.Verdict != tt.verdict || tr.Aggregation != tt.how {
				t.Errorf("score %v verdict %s, want %v %s", tr.Score, tr.Verdict, tt.want, tt.verdict)
			}
			if got := []result.Verdict{tr.Turns[0].Verdict, tr.Turns[1].Verdict, tr.Turns[2].Verdict}; got[1] != result.Fail || got[0] != result.Pass {
				t.Errorf("turn verdicts %v", got)
			}
			if len(seen) != 3 || seen[1] != "chat/turn-2 |  | re: two" {
				t.Errorf("graders saw %q", seen)
			}
		})
	}
}

func TestConversationStopAndContinue(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"stop", "continue"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			ts := turns("one", "two", "three")
			ts[0].Graders, ts[1].Graders, ts[2].Graders = score(1), score(0.5), score(1)
			c := &suite.Conversation{Turns: ts, Aggregation: "mean", OnTurnFailure: policy}
			tr, tg, _ := runConv(t, convSuite(c))
			if policy == "stop" {
				if len(tg.sent) != 2 || tr.Turns[2].Verdict != result.Skip || tr.Turns[2].Score != 0 ||
					!strings.Contains(tr.Turns[2].Error, "turn 2 did not pass") {
					t.Errorf("stop: sent %d, turn 3 %+v", len(tg.sent), tr.Turns[2])
				}
				// Skipped turns score 0 and count: (1 + 0.5 + 0) / 3.
				if fmt.Sprintf("%.3f", tr.Score) != "0.500" || tr.Verdict != result.Fail {
					t.Errorf("stop: score %v verdict %s", tr.Score, tr.Verdict)
				}
				return
			}
			if len(tg.sent) != 3 || tr.Turns[2].Verdict != result.Pass || fmt.Sprintf("%.3f", tr.Score) != "0.833" {
				t.Errorf("continue: sent %d, score %v, turns %+v", len(tg.sent), tr.Score, tr.Turns)
			}
		})
	}
}

func TestConversationTurnErrorIsAnError(t *testing.T) {
	t.Parallel()
	ts := turns("one", "boom", "three")
	ts[0].Graders, ts[2].Graders = score(1), score(1)
	// max would reach 1 from the other turns: an error must still not pass.
	c := &suite.Conversation{Turns: ts, Aggregation: "max", OnTurnFailure: "continue"}
	tr, tg, _ := runConv(t, convSuite(c))
	if tr.Verdict != result.Error || tr.FailureStage != result.StageAgent || !strings.Contains(tr.Error, "turn 2: agent exited with code 2") || tr.Score != 0 {
		t.Errorf("result %s %q stage %s score %v", tr.Verdict, tr.Error, tr.FailureStage, tr.Score)
	}
	if tr.Turns[1].Verdict != result.Error || tr.Turns[1].Output != nil {
		t.Errorf("turn 2 %+v", tr.Turns[1])
	}
	// As in AgentV, the failed turn's user message stays in the history without an answer.
	if got := contents(tg.sent[2]); got != "system:Be brief.,user:one,assistant:re: one,user:boom,user:three" {
		t.Errorf("third turn sent %q", got)
	}
	// A grader error in a turn is an error too.
	ts = turns("one")
	ts[0].Graders = score(-1)
	tr, _, _ = runConv(t, convSuite(&suite.Conversation{Turns: ts, Aggregation: "mean", OnTurnFailure: "continue"}))
	if tr.Verdict != result.Error || tr.FailureStage != result.StageEvaluator || !strings.Contains(tr.Error, "judge unavailable") {
		t.Errorf("grader error: %s %q %s", tr.Verdict, tr.Error, tr.FailureStage)
	}
}

func TestConversationTranscriptGraders(t *testing.T) {
	t.Parallel()
	ts := turns("one", "two")
	ts[1].ExpectedOutput = []suite.Message{{Role: "assistant", Content: "two!"}}
	ts[1].Graders = score(0.6)
	c := &suite.Conversation{Turns: ts, Aggregation: "mean", OnTurnFailure: "continue"}
	tr, _, seen := runConv(t, convSuite(c, score(0.9)...))
	// Turn 1 has nothing to grade (1), turn 2 scores 0.6, the transcript 0.9.
	if fmt.Sprintf("%.3f", tr.Score) != "0.833" || tr.ConversationScore == nil || *tr.ConversationScore != 0.9 || len(tr.Graders) != 1 {
		t.Errorf("score %v conversation %v graders %d", tr.Score, tr.ConversationScore, len(tr.Graders))
	}
	want := []string{"chat/turn-2 | two! | re: two", "chat/conversation |  | system: Be brief.\n\nuser: one\n\nassistant: re: one\n\nuser: two\n\nassistant: re: two"}
	if strings.Join(seen, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("graders saw:\n%s", strings.Join(seen, "\n--\n"))
	}
	// A turn with only expected_output gets the implicit judge.
	ts = turns("one")
	ts[0].ExpectedOutput = []suite.Message{{Role: "assistant", Content: "uno"}}
	tt := turnTest(&suite.Test{ID: "x"}, "x/turn-1", nil, ts[0])
	if len(tt.Graders) != 1 || tt.Graders[0].Type != "llm-grader" || tt.Reference() != "uno" {
		t.Errorf("implicit turn grader %+v", tt.Graders)
	}
}

func TestAggregateEmpty(t *testing.T) {
	t.Parallel()
	if aggregate(nil, "min") != 1 {
		t.Error("no scores should aggregate to 1, as in AgentV")
	}
}

// cancelTarget answers, then cancels the run after its first answer.
type cancelTarget struct{ cancel context.CancelFunc }

func (c cancelTarget) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	c.cancel()
	return &result.Output{Answer: "re: " + req.Prompt}, nil
}

func TestConversationCutShortIsAnError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := convSuite(&suite.Conversation{Turns: turns("one", "two"), Aggregation: "max", OnTurnFailure: "continue"})
	tr := runTest(ctx, withDefaults(cfgFor(cancelTarget{cancel: cancel}, 1)), s, s.Tests[0], 1)
	if tr.Verdict != result.Error || !strings.Contains(tr.Error, "turn 2: not run: cancelled") || tr.Turns[1].Verdict != result.Skip {
		t.Errorf("cut short: %s %q, turn 2 %+v", tr.Verdict, tr.Error, tr.Turns[1])
	}
}
