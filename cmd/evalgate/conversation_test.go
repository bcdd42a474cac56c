package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/result"
)

const conversationSuite = `name: chat
execution:
  target: bot
tests:
  - id: tutor
    mode: conversation
    aggregation: min
    on_turn_failure: stop
    input:
      - role: system
        content: You are a math tutor.
    turns:
      - input: What is 15% of 200?
        assertions:
          - Says 30
          - type: contains
            value: "30"
      - input: Double it.
        assertions:
          - type: contains
            value: "60"
      - input: What did I ask first?
        assertions:
          - Recalls 15% of 200
  - id: coherent
    mode: conversation
    input: You are a travel advisor.
    turns:
      - input: Somewhere warm in December?
        expected_output: Try the Canary Islands.
        assertions:
          - type: contains
            value: Canary
      - input: I prefer beaches.
    assertions:
      - Stays consistent
`

const conversationTargets = `targets:
  - name: bot
    provider: mock
    replies: bot.jsonl
    grader_target: judge
  - name: judge
    provider: mock
    replies: judge.jsonl
`

const botReplies = `{"test_id": "tutor/turn-1", "reply": "15% of 200 is 30."}
{"test_id": "tutor/turn-2", "reply": "Doubled, that is 50."}
{"test_id": "tutor/turn-3", "reply": "never asked"}
{"test_id": "coherent/turn-1", "reply": "The Canary Islands are warm."}
{"test_id": "coherent/turn-2", "reply": "Then Tenerife's beaches."}
`

const judgeReplies = `{"test_id": "tutor/turn-1", "grader": "turn-rubrics", "reply": {"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "says 30"}]}}
{"test_id": "coherent/conversation", "grader": "rubrics", "reply": {"checks": [{"id": "rubric-1", "satisfied": true, "reasoning": "consistent"}]}}
`

// TestConversationEndToEnd runs AgentV conversation tests against the mock provider: each turn
// is asked under its own id, graded on its own, stopped after a failing turn, and reported
// turn by turn in results.json, index.jsonl and the comment.
func TestConversationEndToEnd(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"evals/chat.eval.yaml": conversationSuite,
		"evals/targets.yaml":   conversationTargets,
		"evals/bot.jsonl":      botReplies,
		"evals/judge.jsonl":    judgeReplies,
	})
	out := t.TempDir()
	code, _, stderr := invoke(t, "run", "--root", dir, "--no-cache", "--out", out, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (tutor fails)\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run result.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	tutor, coherent := run.Suites[0].Tests[0], run.Suites[0].Tests[1]
	var verdicts []string
	for _, tu := range tutor.Turns {
		verdicts = append(verdicts, string(tu.Verdict))
	}
	if tutor.Verdict != result.Fail || tutor.Score != 0 || tutor.Aggregation != "min" || strings.Join(verdicts, ",") != "pass,fail,skip" {
		t.Errorf("tutor: %s %v %s turns %v (%s)", tutor.Verdict, tutor.Score, tutor.Aggregation, verdicts, tutor.Error)
	}
	if tutor.Output == nil || tutor.Output.Answer != "Doubled, that is 50." || len(tutor.Output.Messages) != 5 {
		t.Errorf("tutor output %+v", tutor.Output)
	}
	if coherent.Verdict != result.Pass || coherent.Score != 1 || coherent.ConversationScore == nil || len(coherent.Turns) != 2 {
		t.Errorf("coherent: %s %v turns %d (%s)", coherent.Verdict, coherent.Score, len(coherent.Turns), coherent.Error)
	}

	f, err := os.Open(filepath.Join(out, "index.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			TestID string `json:"test_id"`
			Scores []struct {
				Name    string `json:"name"`
				Verdict string `json:"verdict"`
			} `json:"scores"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		for _, s := range row.Scores {
			names = append(names, row.TestID+":"+s.Name+"="+s.Verdict)
		}
	}
	want := "tutor:turn-1=pass tutor:turn-2=fail tutor:turn-3=skip coherent:turn-1=pass coherent:turn-2=pass coherent:conversation=pass"
	if strings.Join(names, " ") != want {
		t.Errorf("index.jsonl scores:\n%s\nwant:\n%s", strings.Join(names, " "), want)
	}
	comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(comment), "**Turns** (min): 1 ✅ 1.00 · 2 ❌ 0.00 · 3 ⏭️ skip") {
		t.Errorf("comment lacks the turns line:\n%s", comment)
	}
}

// TestConversationSendsHistory checks on the wire that a model target gets the conversation so
// far, trimmed to window_size, with its own earlier answers (not the expected ones).
func TestConversationSendsHistory(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t)
	srv.Reply = func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "re: " + r.LastUser()} }
	dir := writeRepo(t, map[string]string{
		"evals/targets.yaml": "targets:\n  - name: bot\n    provider: openai\n    model: gpt-4o-mini\n    api_key: k\n    base_url: " + srv.URL + "/v1\n",
		"evals/w.eval.yaml": `execution:
  target: bot
tests:
  - id: w
    mode: conversation
    window_size: 1
    input:
      - role: system
        content: Be brief.
    turns:
      - input: one
        expected_output: uno
        assertions: [{type: contains, value: one}]
      - input: two
      - input: three
`,
	})
	code, _, stderr := invoke(t, "run", "--root", dir, "--no-cache", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	calls := srv.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want one per turn", len(calls))
	}
	render := func(r *llmtest.Request) string {
		parts := []string{"system:" + r.System}
		for _, m := range r.Messages {
			parts = append(parts, m.Role+":"+m.Content)
		}
		return strings.Join(parts, " | ")
	}
	// window_size 1 keeps the system prompt and the last two messages, the new one included
	// (AgentV's slice of the last 2·n), so turn 2 no longer sees "one".
	want := []string{
		"system:Be brief. | user:one",
		"system:Be brief. | assistant:re: one | user:two",
		"system:Be brief. | assistant:re: two | user:three",
	}
	for i, c := range calls {
		if got := render(c); got != want[i] {
			t.Errorf("call %d sent %q, want %q", i+1, got, want[i])
		}
	}
}

// TestConversationReplayRefused: a replay target has no per-turn outputs, so validate refuses a
// conversation test on it, naming where mode: conversation is written.
func TestConversationReplayRefused(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"evals/targets.yaml": "targets:\n  - name: rec\n    provider: replay\n    outputs: rec.jsonl\n",
		"evals/rec.jsonl":    `{"test_id": "c", "output": [{"role": "assistant", "content": "hi"}]}` + "\n",
		"evals/c.eval.yaml":  "execution:\n  target: rec\ntests:\n  - id: c\n    input: hi\n    mode: conversation\n    turns:\n      - input: one\n",
	})
	code, stdout, stderr := invoke(t, "validate", "--root", dir, dir)
	if code != 2 || !strings.Contains(stdout+stderr, "evals/c.eval.yaml:6:5") || !strings.Contains(stdout+stderr, "replay target rec holds one recorded output per test") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConversationCLIWarns: a cli target gets each turn's input alone, as in AgentV; validate
// says so at the test's mode: conversation but does not refuse it.
func TestConversationCLIWarns(t *testing.T) {
	t.Parallel()
	dir := writeRepo(t, map[string]string{
		"evals/targets.yaml": "targets:\n  - name: sh\n    provider: cli\n    command: echo {PROMPT}\n",
		"evals/c.eval.yaml":  "execution:\n  target: sh\ntests:\n  - id: c\n    input: hi\n    mode: conversation\n    turns:\n      - input: one\n",
	})
	code, stdout, stderr := invoke(t, "validate", "--root", dir, dir)
	if code != 0 || !strings.Contains(stdout+stderr, "evals/c.eval.yaml:6:5: warning: test c: cli target sh gets each turn's input alone") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
}
