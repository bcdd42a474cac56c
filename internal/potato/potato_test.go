package potato

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func ptr[T any](v T) *T { return &v }

const diffText = `diff --git a/greet.go b/greet.go
--- a/greet.go
+++ b/greet.go
@@ -1 +1 @@
-old
+new
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
`

// fixture is a run as results.json holds it: one test with a checklist and a range grader that
// share the id "correct", one Likert test, one test with no judge and one that never ran.
func fixture(t *testing.T) *result.Run {
	t.Helper()
	run := &result.Run{SchemaVersion: 1, Suites: []*result.SuiteResult{{
		Name: "greeter", Path: "evals/greeter.eval.yaml",
		Tests: []*result.TestResult{
			{ID: "hello", Input: "Say hello", Criteria: "Greets", Output: &result.Output{
				Answer:      "Hello!",
				ToolCalls:   []result.ToolCall{{Tool: "read", Input: map[string]any{"path": "greet.go"}, Output: "old"}, {Tool: "write", Status: "ok"}},
				FileChanges: diffText,
			}, Graders: []*result.GraderResult{
				{Name: "rubric", Type: "rubrics", Mode: "checklist", Criteria: []*result.CriterionResult{
					{ID: "correct", Outcome: "Says hello", Weight: 2, Required: true, Satisfied: ptr(true)},
					{ID: "polite", Outcome: "Is polite", Weight: 1, Satisfied: ptr(false)},
				}},
				{Name: "quality", Type: "rubrics", Mode: "score_range", Criteria: []*result.CriterionResult{
					{ID: "correct", Outcome: "Correctness", Weight: 1, MinScore: ptr(0.7), Raw: ptr(8)},
				}},
				{Name: "contains", Type: "contains", Score: 1},
			}},
			{ID: "likert", Input: "Fix it", Output: &result.Output{Answer: "fixed", Messages: []result.Message{
				{Role: "assistant", ToolCalls: []result.ToolCall{{Tool: "bash", Input: "go test"}}},
			}}, Graders: []*result.GraderResult{
				{Name: "agent_quality", Type: "likert", Mode: "likert", Details: map[string]any{"scale": []any{1.0, 5.0}, "overall": 4.0, "weighted_score": 3.5},
					Criteria: []*result.CriterionResult{
						{ID: "correctness", Outcome: "Solves it", Weight: 3, Raw: ptr(4)},
						{ID: "code_quality", Outcome: "Clean", Weight: 2, Raw: ptr(3)},
					}},
			}},
			{ID: "no-judge", Output: &result.Output{Answer: "x"}, Graders: []*result.GraderResult{{Name: "contains", Type: "contains"}}},
			{ID: "skipped", Verdict: result.Skip, Graders: []*result.GraderResult{{Name: "rubric", Mode: "checklist", Criteria: []*result.CriterionResult{{ID: "correct"}}}}},
		},
	}}}
	// Round-trip through JSON: export and pairing read results.json, not in-process values.
	b, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	var back result.Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// specs is the suite behind the fixture: score-range texts and Likert anchors.
func specs(_ *result.SuiteResult, tr *result.TestResult, grader string) *suite.Grader {
	switch {
	case tr.ID == "hello" && grader == "quality":
		return &suite.Grader{Name: "quality", Criteria: []*suite.Criterion{{ID: "correct", ScoreRanges: []suite.ScoreRange{
			{Min: 0, Max: 4, Outcome: "wrong"}, {Min: 5, Max: 10, Outcome: "right"}}}}}
	case tr.ID == "likert":
		return &suite.Grader{Name: "agent_quality", Likert: &suite.LikertScheme{Min: 1, Max: 5,
			Labels: map[int]string{1: "Poor", 5: "Excellent"},
			Criteria: []*suite.LikertCriterion{
				{Name: "correctness", Label: "Correctness", Anchors: map[int]string{1: "broken", 5: "fully correct"}},
				{Name: "code_quality", Label: "Code Quality"},
			},
			Overall: &suite.LikertCriterion{Name: "overall", Label: "Overall Quality", Description: "holistic"}}}
	}
	return nil
}

func TestExportGolden(t *testing.T) {
	t.Parallel()
	projects := Export(fixture(t), specs)
	dir := t.TempDir()
	if err := Write(dir, projects); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	for _, p := range projects {
		for _, f := range []string{"config.yaml", DataFile, MapFile} {
			b, err := os.ReadFile(filepath.Join(dir, p.Name, f))
			if err != nil {
				t.Fatal(err)
			}
			got.WriteString("=== " + p.Name + "/" + f + "\n")
			got.Write(b)
		}
		if _, err := os.Stat(filepath.Join(dir, p.Name, outputDir)); err != nil {
			t.Errorf("no output directory for Potato: %v", err)
		}
	}
	golden.Check(t, filepath.Join("testdata", "export.golden"), got.String(), *update)
}

func TestExportStructure(t *testing.T) {
	t.Parallel()
	projects := Export(fixture(t), specs)
	// Two rubrics in one suite: two projects; tests without a judge or without output are left out.
	if len(projects) != 2 || projects[0].Name != "greeter" || projects[1].Name != "greeter-2" {
		t.Fatalf("projects %v, want greeter and greeter-2", names2(projects))
	}
	hello := projects[0]
	if len(hello.Items) != 1 || hello.Items[0].TraceID != "greeter/hello" {
		t.Fatalf("items %+v", hello.Items)
	}
	it := hello.Items[0]
	// No messages: one assistant turn holds every call, as coding_trace reads turns.
	if len(it.Turns) != 1 || it.Turns[0].Role != "assistant" || len(it.Turns[0].ToolCalls) != 2 ||
		it.Turns[0].ToolCalls[0].Tool != "read" || it.Turns[0].ToolCalls[1].Status != "ok" {
		t.Errorf("turns %+v, want one turn with the two tool calls in order", it.Turns)
	}
	if it.Diff != diffText || it.Answer != "Hello!" || it.Task != "Say hello" {
		t.Errorf("item %+v", it)
	}
	cfg := hello.Config
	if cfg.TaskDir == "" || cfg.OutputAnnotationDir == "" || cfg.ItemProperties.IDKey != "trace_id" || len(cfg.InstanceDisplay.Fields) != 4 ||
		cfg.InstanceDisplay.Fields[2].Type != "coding_trace" || cfg.InstanceDisplay.Fields[2].Key != "turns" {
		t.Errorf("config %+v", cfg)
	}
	ss := cfg.AnnotationSchemes
	// Checklist: two columns, not met and met, rows described by the criterion's text.
	if len(ss) != 2 || ss[0].ScalePoints != 2 || strings.Join(ss[0].ScaleLabels, ",") != "Not met,Met" || ss[0].ShowOverall {
		t.Fatalf("schemes %+v", ss)
	}
	// "correct" is in both graders: both are qualified by grader name.
	if ss[0].Criteria[0].Name != "rubric.correct" || ss[0].Criteria[1].Name != "polite" || ss[1].Criteria[0].Name != "quality.correct" {
		t.Errorf("names %s %s %s", ss[0].Criteria[0].Name, ss[0].Criteria[1].Name, ss[1].Criteria[0].Name)
	}
	if c := ss[0].Criteria[0]; c.Description != "Says hello (weight 2, required)" {
		t.Errorf("checklist criterion %+v", c)
	}
	// Score range: eleven columns 0…10, the ranges in the row's description.
	if c := ss[1].Criteria[0]; ss[1].ScalePoints != 11 || ss[1].ScaleLabels[0] != "0" || ss[1].ScaleLabels[10] != "10" ||
		c.Description != "Correctness (weight 1, min score 0.7) · 0–4: wrong · 5–10: right" {
		t.Errorf("range criterion %+v on %+v", c, ss[1])
	}
	if m := hello.Map.Schemes["quality"]; m == nil || m.Min != 0 || m.Max != 10 || m.Criteria["quality.correct"] != "quality.correct" {
		t.Errorf("map %+v", hello.Map.Schemes)
	}
	lk := projects[1].Config.AnnotationSchemes[0]
	if lk.ScalePoints != 5 || lk.ScaleLabels[0] != "Poor" || lk.ScaleLabels[1] != "2" || lk.ScaleLabels[4] != "Excellent" || !lk.ShowOverall ||
		lk.Criteria[0].Description != "Correctness: Solves it (weight 3) · 1: broken · 5: fully correct" {
		t.Errorf("likert scheme %+v %+v", lk, lk.Criteria[0])
	}
	if m := projects[1].Map.Schemes["agent_quality"]; m.Overall != "overall" || m.Weighted != "weighted_score" || m.Weights["correctness"] != 3 {
		t.Errorf("likert map %+v", m)
	}
	if got := projects[1].Items[0].Turns; len(got) != 1 || got[0].ToolCalls[0].Tool != "bash" {
		t.Errorf("turns from messages %+v", got)
	}
	// Without the suite, the export still works from results.json alone.
	bare := Export(fixture(t), nil)
	if lk := bare[1].Config.AnnotationSchemes[0]; lk.ScalePoints != 5 || !lk.ShowOverall || lk.Criteria[0].Description != "Solves it (weight 3)" {
		t.Errorf("bare likert scheme %+v", lk)
	}
}

func names2(ps []*Project) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// seed is the annotation of Potato's rubric_eval tutorial, verbatim.
const seed = `{
  "trace_id": "trace_042",
  "annotator": "annotator_03",
  "timestamp": "2026-03-20T10:15:32Z",
  "rubric": {
    "criteria_ratings": {
      "correctness": 4,
      "code_quality": 3,
      "efficiency": 5,
      "documentation": 2,
      "error_handling": 3
    },
    "overall": 4,
    "notes": "Agent found and fixed the bug efficiently but did not add any comments explaining the change. Error handling for the edge case is minimal.",
    "weighted_score": 3.56
  }
}`

func TestSeedWeightedScore(t *testing.T) {
	t.Parallel()
	anns, err := readAnnotations([]byte("["+seed+"]"), "seed.json")
	if err != nil || len(anns) != 1 {
		t.Fatalf("%v %v", anns, err)
	}
	r := anns[0].Schemes[0]
	if anns[0].TraceID != "trace_042" || anns[0].Annotator != "annotator_03" || r.Key != "rubric" || *r.Overall != 4 || *r.Weighted != 3.56 {
		t.Fatalf("annotation %+v %+v", anns[0], r)
	}
	weights := map[string]float64{"correctness": 3, "code_quality": 2, "efficiency": 1.5, "documentation": 1, "error_handling": 1.5}
	w, ok := weightedScore(r.Ratings, weights)
	if !ok || math.Abs(w-32.0/9) > 1e-12 || math.Round(w*100)/100 != 3.56 {
		t.Errorf("weighted score %v, want 32/9 = 3.56", w)
	}
	if _, ok := weightedScore(r.Ratings, map[string]float64{"unrated": 1}); ok {
		t.Error("weighted score with no rated criterion should be undefined")
	}
}

func TestReadAnnotations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		n          int
		err        string
	}{
		{"jsonl", strings.ReplaceAll(seed, "\n", "") + "\n\n" + `{"trace_id":"t2","annotator":"a","rubric":{"criteria_ratings":{"x":"2","y":null}}}`, 2, ""},
		{"other scheme rows skipped", `{"trace_id":"t","annotator":"a","step_eval":{"steps":[]}}`, 0, ""},
		{"per-scheme objects", `{"trace_id":"t","annotator":"a","quality":{"criteria_ratings":{"x":1}},"rubric":{"criteria_ratings":{"y":2}}}`, 1, ""},
		{"no annotator", `{"trace_id":"t","rubric":{"criteria_ratings":{"x":1}}}`, 0, `f.jsonl:1: rubric annotation of "t" has no "annotator"`},
		{"no trace id", `{"annotator":"a","rubric":{"criteria_ratings":{"x":1}}}`, 0, `f.jsonl:1: rubric annotation has no "trace_id"`},
		{"bad rating", `{"trace_id":"t","annotator":"a","rubric":{"criteria_ratings":{"x":"good"}}}`, 0, `rubric.criteria_ratings.x: rating "good" is not a number`},
		{"not json", "{", 0, "f.jsonl:1:"},
		{"pretty object", "{\n  \"id\": 7,\n  \"user_id\": \"u\",\n  \"label_annotations\": {\"q\": {\"criteria_ratings\": {\"x\": 1}}}\n}", 1, ""},
		{"state file", `{"user": "u", "phase": "annotation"}`, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			anns, err := readAnnotations([]byte(tt.data), "f.jsonl")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || len(anns) != tt.n {
				t.Fatalf("%d annotations, %v; want %d", len(anns), err, tt.n)
			}
		})
	}
	anns, _ := readAnnotations([]byte(`{"trace_id":"t2","annotator":"a","rubric":{"criteria_ratings":{"x":"2","y":null}}}`), "f")
	if r := anns[0].Schemes[0].Ratings; len(r) != 1 || r["x"] != 2 {
		t.Errorf("ratings %v: a numeric string counts, null is unrated", r)
	}
	anns, _ = readAnnotations([]byte(`{"id": 7, "user_id": "u", "label_annotations": {"q": {"criteria_ratings": {"x": 1}}}}`), "f")
	if len(anns) != 1 || anns[0].TraceID != "7" || anns[0].Annotator != "u" || anns[0].Schemes[0].Key != "q" {
		t.Errorf("fallback ids and nested rubric: %+v", anns)
	}
}

func TestPair(t *testing.T) {
	t.Parallel()
	anns, err := readAnnotations([]byte(strings.Join([]string{
		`{"trace_id":"greeter/hello","annotator":"ann","rubric":{"criteria_ratings":{"rubric.correct":1,"polite":1,"quality.correct":7}}}`,
		`{"trace_id":"greeter/likert","annotator":"ann","rubric":{"criteria_ratings":{"correctness":5,"code_quality":2},"overall":3}}`,
		`{"trace_id":"greeter/likert","annotator":"bob","rubric":{"criteria_ratings":{"correctness":4},"weighted_score":4.2}}`,
		`{"trace_id":"elsewhere/x","annotator":"bob","rubric":{"criteria_ratings":{"polite":0}}}`,
	}, "\n")), "a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := pair(fixture(t), anns)
	judge := map[string]float64{}
	for _, r := range in.Judge {
		judge[r.Item+" "+r.Criterion] = r.Value
	}
	wantJudge := map[string]float64{
		"greeter/hello rubric.correct": 1, "greeter/hello polite": 0, "greeter/hello quality.correct": 8,
		"greeter/likert correctness": 4, "greeter/likert code_quality": 3, "greeter/likert overall": 4, "greeter/likert weighted_score": 3.5,
	}
	if len(judge) != len(wantJudge) {
		t.Errorf("judge ratings %v, want %v", judge, wantJudge)
	}
	for k, v := range wantJudge {
		if judge[k] != v {
			t.Errorf("judge %s = %v, want %v", k, judge[k], v)
		}
	}
	human := map[string]float64{}
	for _, r := range in.Humans {
		human[r.Rater+" "+r.Item+" "+r.Criterion] = r.Value
	}
	// ann gave no weighted_score: it is computed from the Likert weights, (5·3 + 2·2)/5 = 3.8.
	for k, v := range map[string]float64{
		"ann greeter/hello quality.correct": 7, "ann greeter/likert overall": 3, "ann greeter/likert weighted_score": 3.8,
		"bob greeter/likert weighted_score": 4.2, "bob elsewhere/x polite": 0,
	} {
		if got, ok := human[k]; !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("human %s = %v (%v), want %v", k, got, ok, v)
		}
	}
	if in.Scales["quality.correct"].Max != 10 || in.Scales["polite"].Max != 1 || in.Scales["correctness"].Max != 5 {
		t.Errorf("scales %v", in.Scales)
	}
	if in.Order[0] != "rubric.correct" || in.Order[len(in.Order)-1] != "weighted_score" {
		t.Errorf("order %v", in.Order)
	}
}

// readAnnotations reads a Potato annotation file the way calibrate does (readFile), without
// a column map.
func readAnnotations(data []byte, path string) ([]*annotation, error) {
	anns, _, err := readFile(data, path, nil)
	return anns, err
}
