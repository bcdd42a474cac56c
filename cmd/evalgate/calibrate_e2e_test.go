package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/golden"
	"github.com/evalgate/evalgate/internal/potato"
)

// TestCalibrationEndToEnd runs a Likert suite with the mock judge, exports it for Potato, feeds
// hand-written annotations of two humans back and checks calibrate's numbers.
func TestCalibrationEndToEnd(t *testing.T) {
	t.Parallel()
	report, exported := t.TempDir(), t.TempDir()
	if code, _, stderr := invoke(t, "run", "--root", "testdata/calib", "--no-cache", "--fail-on", "never", "--out", report, "testdata/calib"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	results := filepath.Join(report, "results.json")

	code, stdout, stderr := invoke(t, "export", "potato", results, "--out", exported, "--root", "testdata/calib")
	if code != 0 || !strings.Contains(stdout, "fixes/config.yaml: 4 traces, 1 schemes") {
		t.Fatalf("export: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	cfg, err := os.ReadFile(filepath.Join(exported, "fixes", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"annotation_type: rubric_eval", "name: correctness", "(weight 3)", "5: fully fixed", "show_overall: true", "id_key: trace_id", "output_annotation_dir: annotation_output", "type: coding_trace"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cfg)
		}
	}
	data, err := os.ReadFile(filepath.Join(exported, "fixes", potato.DataFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var first potato.Item
	if len(lines) != 4 || json.Unmarshal([]byte(lines[0]), &first) != nil || first.TraceID != "fixes/t1" || first.Task != "Fix bug 1" || first.Answer != "Hello! Here is the fix." {
		t.Fatalf("data file:\n%s", data)
	}

	code, stdout, stderr = invoke(t, "calibrate", "testdata/calib/annotations.jsonl", "--results", results, "--format", "json")
	if code != 0 {
		t.Fatalf("calibrate: exit %d\n%s", code, stderr)
	}
	var rep calibrate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("calibrate JSON: %v\n%s", err, stdout)
	}
	if rep.Annotators != 2 || rep.Items != 5 || len(rep.Unmatched) != 1 || rep.Unmatched[0] != "fixes/t9" {
		t.Errorf("annotators %d items %d unmatched %v", rep.Annotators, rep.Items, rep.Unmatched)
	}
	rows := map[string]*calibrate.Row{}
	for _, r := range rep.Criteria {
		rows[r.Criterion] = r
	}
	tests := []struct {
		criterion     string
		verdict       calibrate.Verdict
		items         int
		judgeAlpha    float64
		exact, within float64
		bias          float64
	}{
		// Four items are fewer than calibrate.MinItems: α is exact, but no verdict is drawn
		// from it. Both humans rate exactly as the judge.
		{"correctness", calibrate.NotEnoughData, 4, 1, 1, 1, 0},
		// The humans contradict each other on every item; the judge (4, 4, 2, 5) matches one
		// of eight ratings and is within one of four.
		{"clarity", calibrate.NotEnoughData, 4, math.NaN(), 0.125, 0.5, 0.75},
		// One human, one point below the judge on three items: α = 1 − 7·6/286.
		{"overall", calibrate.NotEnoughData, 4, 1 - 7.0*6/286, 0.25, 1, 0.75},
		// ann_a's weighted score is computed from the weights, ann_b's read as given.
		{"weighted_score", "", 4, math.NaN(), math.NaN(), math.NaN(), 0.1875},
	}
	for _, tt := range tests {
		r := rows[tt.criterion]
		if r == nil {
			t.Errorf("no row for %s in %s", tt.criterion, stdout)
			continue
		}
		if tt.verdict != "" && r.Verdict != tt.verdict {
			t.Errorf("%s: verdict %q (%s), want %q", tt.criterion, r.Verdict, r.Why, tt.verdict)
		}
		if r.Items != tt.items {
			t.Errorf("%s: items %d, want %d", tt.criterion, r.Items, tt.items)
		}
		nearPtr(t, tt.criterion+" judge α", r.JudgeAlpha.Interval.Value, tt.judgeAlpha)
		nearPtr(t, tt.criterion+" exact", r.Exact, tt.exact)
		nearPtr(t, tt.criterion+" within one", r.WithinOne, tt.within)
		nearPtr(t, tt.criterion+" bias", r.Bias, tt.bias)
	}
	if r := rows["clarity"]; r.HumanAlpha.Interval.Value == nil || *r.HumanAlpha.Interval.Value >= 0 {
		t.Errorf("clarity: human α %v, want negative", r.HumanAlpha.Interval.Value)
	}
	// An undefined α is null with its reason (a NaN would not even decode): read as written.
	var raw struct {
		Criteria []struct {
			Criterion string
			Humans    struct{ Interval map[string]any } `json:"human_human_alpha"`
		}
	}
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatalf("calibrate JSON: %v", err)
	}
	undefined := map[string]any{}
	for _, c := range raw.Criteria {
		if c.Criterion == "overall" {
			undefined = c.Humans.Interval
		}
	}
	if d := cmp.Diff(map[string]any{"value": nil, "undefined": "no item has two ratings", "units": 0.0, "values": 0.0}, undefined); d != "" {
		t.Errorf("overall's undefined human–human α (-want +got):\n%s", d)
	}

	code, stdout, _ = invoke(t, "calibrate", "testdata/calib", "--results", results)
	if code != 0 || !strings.Contains(stdout, "correctness") || !strings.Contains(stdout, "not enough data") || !strings.Contains(stdout, "only 4 items rated by the judge and a human") ||
		strings.Contains(stdout, "judge trustworthy") || !strings.Contains(stdout, "1.000") || !strings.Contains(stdout, "fixes/t9") {
		t.Errorf("table (directory of annotations): exit %d\n%s", code, stdout)
	}
	code, stdout, _ = invoke(t, "calibrate", "testdata/calib/annotations.jsonl", "--results", results, "--format", "markdown")
	if code != 0 {
		t.Fatalf("markdown: exit %d\n%s", code, stdout)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "calibrate.md"), stdout, updating())
}

// TestCalibrateHumansOnly: without --results, calibrate reports the annotators' agreement per
// criterion with its interval — the first analysis of Potato's rubric tutorial.
func TestCalibrateHumansOnly(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 12 {
		v := 1 + i%5
		for _, ann := range []string{"ann_a", "ann_b"} {
			clarity := v
			if ann == "ann_b" {
				clarity = 6 - v // the humans read "clarity" in opposite ways
			}
			fmt.Fprintf(&b, `{"trace_id": "s/t%d", "annotator": %q, "rubric": {"criteria_ratings": {"correctness": %d, "clarity": %d}}}`+"\n", i, ann, v, clarity)
		}
	}
	path := filepath.Join(t.TempDir(), "annotated.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := invoke(t, "calibrate", path, "--format", "json")
	if code != 0 {
		t.Fatalf("calibrate: exit %d\n%s", code, stderr)
	}
	var rep calibrate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("calibrate JSON: %v\n%s", err, stdout)
	}
	if !rep.HumansOnly || rep.Annotators != 2 || rep.Items != 12 || len(rep.Unmatched) != 0 {
		t.Errorf("report %+v", rep)
	}
	want := map[string]calibrate.Verdict{"correctness": calibrate.HumansAgree, "clarity": calibrate.HumansDisagree}
	for _, r := range rep.Criteria {
		a := r.HumanAlpha.Interval
		if r.Verdict != want[r.Criterion] || a.Value == nil || a.CI == nil || a.CI.Low > *a.Value || a.CI.High < *a.Value {
			t.Errorf("%s: verdict %q (%s), α %+v; want %q with an interval around α", r.Criterion, r.Verdict, r.Why, a, want[r.Criterion])
		}
	}
	code, stdout, _ = invoke(t, "calibrate", path)
	if code != 0 || !strings.Contains(stdout, "human–human agreement: 2 annotators, 12 items") || !strings.Contains(stdout, "humans agree") || strings.Contains(stdout, "j–h") {
		t.Errorf("table: exit %d\n%s", code, stdout)
	}
}

// nearPtr compares an optional number with want (NaN: skip, the value is not checked).
func nearPtr(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	switch {
	case math.IsNaN(want):
	case got == nil:
		t.Errorf("%s missing, want %v", what, want)
	case math.Abs(*got-want) > 1e-9:
		t.Errorf("%s = %v, want %v", what, *got, want)
	}
}

func TestCalibrateUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad format", []string{"calibrate", "x.jsonl", "--results", "r.json", "--format", "xml"}, "--format must be table, markdown or json"},
		{"missing results", []string{"calibrate", "testdata/calib/annotations.jsonl", "--results", "testdata/calib/nope.json"}, "read results"},
		{"no annotations", []string{"calibrate", "--results", "r.json"}, "requires at least 1 arg"},
		{"NaN threshold", []string{"calibrate", "x.jsonl", "--results", "r.json", "--reliable", "NaN"}, "--tentative must not exceed --reliable"},
		{"NaN tentative", []string{"calibrate", "x.jsonl", "--results", "r.json", "--tentative", "NaN"}, "--tentative must not exceed --reliable"},
		{"export without format", []string{"export"}, "export needs a format"},
		{"export misspelt", []string{"export", "potatoe", "x"}, `unknown export format "potatoe"`},
		{"export without out", []string{"export", "potato", "r.json"}, "needs --out"},
		{"export not results", []string{"export", "potato", "testdata/calib/targets.yaml", "--out", "x"}, "testdata/calib/targets.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := invoke(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
