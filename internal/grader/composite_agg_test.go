package grader

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	gocmp "github.com/google/go-cmp/cmp"
)

// aggregated is a composite over a passing and a failing member with the given aggregator.
func aggregated(aggregator map[string]any) *suite.Grader {
	s := spec("composite", map[string]any{"aggregator": aggregator})
	s.Members = []*suite.Grader{
		{Name: "greets", Type: "contains", Value: "hello", Weight: 1},
		{Name: "polite", Type: "contains", Value: "please", Weight: 1},
	}
	return s
}

func TestCompositeCodeAggregator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		score        float64
		want         result.Verdict
		wantErr      string
	}{
		{"score and assertions", `echo '{"score": 0.9, "assertions": [{"text": "gate held", "passed": true}, {"passed": true}]}'`, 0.9, result.Pass, ""},
		{"verdict wins over score", `echo '{"score": 1, "verdict": "fail"}'`, 1, result.Fail, ""},
		{"pass verdict", `echo '{"score": 0.5, "verdict": "pass"}'`, 0.5, result.Pass, ""},
		{"no score is 0", `echo '{"assertions": [{"text": "x", "passed": true}]}'`, 0, result.Fail, ""},
		{"score from the members", `node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")).results; console.log(JSON.stringify({score: r.greets.score * 0.5 + r.polite.score * 0.5}))'`, 0.5, result.Fail, ""},
		{"non-zero exit fails", `echo boom >&2; exit 3`, 0, result.Fail, "code aggregator exited with code 3: boom"},
		{"no JSON is an error", `echo fine`, 0, result.Error, "printed no JSON verdict"},
		{"score out of range is an error", `echo '{"score": 7}'`, 0, result.Error, "outside [0, 1]"},
		{"missing command is an error", `exec ./no-such-aggregator`, 0, result.Fail, "exited with code 127"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(tt.script, "node ") {
				needNode(t)
			}
			s := aggregated(map[string]any{"type": "code-grader", "path": tt.script})
			r := gradeIn(t, s, &Input{Suite: &suite.Suite{Dir: t.TempDir()}, Output: &result.Output{Answer: "hello"}})
			wantResult(t, r, tt.score, tt.want)
			if !strings.Contains(r.Error, tt.wantErr) {
				t.Errorf("error %q, want %q", r.Error, tt.wantErr)
			}
			if len(r.Members) != 2 {
				t.Errorf("%d member results, want 2", len(r.Members))
			}
		})
	}
}

// TestCompositeCodeAggregatorInput checks the stdin an aggregator script gets: AgentV's
// {"results": {name: EvaluationScore}}, camelCase, run in the eval file's directory.
func TestCompositeCodeAggregatorInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := aggregated(map[string]any{"type": "code-grader", "path": `cat > stdin.json && echo '{"score": 1}'`})
	r := gradeIn(t, s, &Input{Suite: &suite.Suite{Dir: dir}, Output: &result.Output{Answer: "hello"}})
	wantResult(t, r, 1, result.Pass)
	data, err := os.ReadFile(filepath.Join(dir, "stdin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Results map[string]struct {
			Score               float64            `json:"score"`
			Verdict             string             `json:"verdict"`
			Assertions          []result.Assertion `json:"assertions"`
			ExpectedAspectCount int                `json:"expectedAspectCount"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("stdin %s: %v", data, err)
	}
	g, p := got.Results["greets"], got.Results["polite"]
	if g.Score != 1 || g.Verdict != "pass" || len(g.Assertions) != 1 || g.ExpectedAspectCount != 1 ||
		p.Score != 0 || p.Verdict != "fail" || len(p.Assertions) != 1 || p.Assertions[0].Passed {
		t.Errorf("stdin %s", data)
	}
	// Pretty-printed with two spaces, as AgentV's is: re-indenting the document changes nothing.
	var indented bytes.Buffer
	if err := json.Indent(&indented, data, "", "  "); err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(indented.String(), string(data)); diff != "" {
		t.Errorf("stdin is not indented with two spaces (-indented +stdin):\n%s", diff)
	}
}

func TestCompositeLLMAggregator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, prompt, reply string
		score               float64
		want                result.Verdict
		golden              string // the judge's prompt, system and user, under testdata/golden
	}{
		{"default prompt", "", `{"score": 0.9, "assertions": [{"text": "balanced", "passed": true}]}`, 0.9, result.Pass, "composite-llm-default.txt"},
		{"custom prompt", "Weigh these: {{EVALUATOR_RESULTS_JSON}} and decide.", `{"score": 0.2}`, 0.2, result.Fail, "composite-llm-custom.txt"},
		{"unusable reply", "", `no json here`, 0, result.Error, "composite-llm-default.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client := &recorder{reply: tt.reply}
			agg := map[string]any{"type": "llm-grader"}
			if tt.prompt != "" {
				agg["prompt"] = tt.prompt
			}
			s := aggregated(agg)
			var asked []string
			g, err := New(s, Deps{Judge: func(target string) (*judge.Judge, error) {
				asked = append(asked, target)
				return &judge.Judge{Client: client, Name: "judge", MaxAttempts: 1}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			r := g.Grade(t.Context(), &Input{Test: &suite.Test{ID: "t1"}, Output: &result.Output{Answer: "hello"}})
			wantResult(t, r, tt.score, tt.want)
			reqs := client.requests()
			if len(reqs) == 0 {
				t.Fatal("the judge was not asked")
			}
			if len(reqs[0].Messages) != 1 {
				t.Fatalf("%d messages, want the one user message", len(reqs[0].Messages))
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.golden), "=== system\n"+reqs[0].System+"\n=== user\n"+reqs[0].Messages[0].Content, *update)
			if reqs[0].Tag.TestID != "t1" || reqs[0].Tag.Grader != "composite" {
				t.Errorf("tag %+v", reqs[0].Tag)
			}
			if len(asked) != 1 || asked[0] != "" {
				t.Errorf("judges asked for %q, want the test's default judge once", asked)
			}
			if len(r.Members) != 2 {
				t.Errorf("%d member results, want 2", len(r.Members))
			}
		})
	}
}

func TestCompositeAggregatorMemberError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := spec("composite", map[string]any{"aggregator": map[string]any{"type": "code-grader", "path": "touch ran"}})
	s.Members = []*suite.Grader{{Name: "slow", Type: "latency", Weight: 1}}
	r := gradeIn(t, s, &Input{Suite: &suite.Suite{Dir: dir}, Output: &result.Output{Answer: "x"}})
	wantResult(t, r, 0, result.Error)
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the aggregator ran on a member error: an error must not be aggregated into a verdict")
	}
}
