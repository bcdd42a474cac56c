package potato

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/calibrate"
)

// potatoMade is where the files Potato's own code wrote are kept (see its README.md).
var potatoMade = filepath.Join("..", "..", "cmd", "evalgate", "testdata", "potato")

// TestReadPotatoFiles reads what Potato stored for the quickstart's checklist project: the
// user state of one rater and Potato's export of all three, mapped by the export's map.
func TestReadPotatoFiles(t *testing.T) {
	t.Parallel()
	project := filepath.Join(potatoMade, "quickstart", "calculator")
	tests := []struct {
		file, format string
		annotations  int
		ratings      int
	}{
		{"annotation_output/ann_a/user_state.json", FormatUserState, 1, 4},
		{"export/annotations.jsonl", FormatExport, 3, 12},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(project, filepath.FromSlash(tt.file))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, mp, err := findMap(path)
			if err != nil || m == nil || mp != mustAbs(t, filepath.Join(project, MapFile)) {
				t.Fatalf("map %v at %q: %v", m, mp, err)
			}
			anns, src, err := readFile(data, path, m)
			if err != nil {
				t.Fatal(err)
			}
			if src.Format != tt.format || src.Ratings != tt.ratings || len(src.Skipped) != 0 || len(anns) != tt.annotations {
				t.Fatalf("source %+v (skipped %v), %d annotations", src, src.Skipped, len(anns))
			}
			a := anns[0]
			r := a.Schemes[0]
			// Potato stored ann_a's columns 1, 2, 1, 2: not met, met, not met, met.
			if a.TraceID != "calculator/add-subtract" || a.Annotator != "ann_a" || r.Key != "diff-review" ||
				r.Ratings["add-preserved"] != 0 || r.Ratings["read-before-edit"] != 1 || r.Ratings["subtract-added"] != 0 || r.Ratings["test-added"] != 1 ||
				r.Scales["test-added"] != (calibrate.Scale{Min: 0, Max: 1}) {
				t.Errorf("annotation %+v %+v", a, r)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReadPotatoSkips checks that what cannot be mapped is counted as skipped, with the reason.
func TestReadPotatoSkips(t *testing.T) {
	t.Parallel()
	m := &Map{Schemes: map[string]*SchemeMap{
		"q": {Grader: "q", Mode: "likert", Min: 1, Max: 5, Criteria: map[string]string{"c": "c", "d": "d"}, Overall: "q.overall",
			Weights: map[string]float64{"c": 3, "d": 1}, Weighted: "q.weighted_score"},
		"r": {Grader: "r", Mode: "score_range", Min: 0, Max: 10, Criteria: map[string]string{"x": "x"}},
	}}
	state := `{"user_id": "u", "instance_id_to_label_to_value": {"s/t": [
		[{"schema": "q", "name": "c"}, "5"], [{"schema": "q", "name": "d"}, "1"], [{"schema": "q", "name": "overall"}, "4"],
		[{"schema": "q", "name": "e"}, "3"], [{"schema": "q", "name": "c2"}, "9"],
		[{"schema": "r", "name": "x"}, "11"], [{"schema": "r", "name": "x2"}, "12"],
		[{"schema": "sentiment", "name": "positive"}, "true"]]}}`
	anns, src, err := readFile([]byte(state), "user_state.json", m)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for _, k := range src.Skipped {
		reasons[k.Reason] = k.Count
	}
	want := map[string]int{
		`criterion "e" is not in the export's scheme "q"`:  1,
		`criterion "c2" is not in the export's scheme "q"`: 1,
		`criterion "x2" is not in the export's scheme "r"`: 1,
		`scheme "sentiment" is not one the export wrote`:   1,
	}
	for r, n := range want {
		if reasons[r] != n {
			t.Errorf("skipped %v, want %q × %d", reasons, r, n)
		}
	}
	// Column 11 of eleven is score 10; the weighted score is (5·3 + 1·1)/4 = 4.
	if src.Ratings != 4 || len(anns) != 1 || len(anns[0].Schemes) != 2 {
		t.Fatalf("source %+v, annotations %+v", src, anns)
	}
	q, r := anns[0].Schemes[0], anns[0].Schemes[1]
	if q.Ratings["c"] != 5 || q.Ratings["d"] != 1 || *q.Overall != 4 || q.OverallName != "q.overall" || *q.Weighted != 4 || q.WeightedName != "q.weighted_score" || r.Ratings["x"] != 10 {
		t.Errorf("q %+v r %+v", q, r)
	}
	if _, src, _ := readFile([]byte(strings.Replace(state, `"11"`, `"12"`, 1)), "f", m); src.Ratings != 3 || !skipped(src, `value "12" of r:x is not a column 1–11`) {
		t.Errorf("out-of-range column: %+v", src)
	}
	// Without the export's map nothing of Potato's is read: a column is not a score.
	if anns, src, _ := readFile([]byte(state), "f", nil); len(anns) != 0 || src.Ratings != 0 || src.Skipped[0].Count != 8 ||
		!strings.Contains(src.Skipped[0].Reason, "no evalgate.json") {
		t.Errorf("without a map: %d annotations, %+v", len(anns), src)
	}
	// Potato's export rows and the tutorial's rows in one file; a data row is not a rating.
	rows := `{"instance_id": "s/t", "user_id": "v", "labels": {"q": {"c": "2"}}, "spans": {}}
{"trace_id": "s/t", "annotator": "w", "rubric": {"criteria_ratings": {"c": 3}, "overall": 2}}
{"trace_id": "s/t", "task": "x", "turns": []}`
	anns, src, err = readFile([]byte(rows), "rows.jsonl", m)
	if err != nil || len(anns) != 2 || src.Ratings != 3 || len(src.Skipped) != 1 || anns[0].Schemes[0].Ratings["c"] != 2 {
		t.Errorf("mixed rows: %v, %d annotations, %+v %v", err, len(anns), src, src.Skipped)
	}
	seen := newSeen()
	again, _, _ := readFile([]byte(state), "a", m)
	src2 := &calibrate.Source{Ratings: 4}
	if first := dedupe(again, seen, src2); len(first) != 1 || src2.Ratings != 4 {
		t.Errorf("first read dropped ratings: %+v", src2)
	}
	again, _, _ = readFile([]byte(state), "b", m)
	if second := dedupe(again, seen, src2); len(second) != 0 || src2.Ratings != 0 || src2.Skipped[0].Count != 4 {
		t.Errorf("second read of the same ratings: %d kept, %+v", len(second), src2)
	}
}

func skipped(src *calibrate.Source, reason string) bool {
	for _, k := range src.Skipped {
		if k.Reason == reason {
			return true
		}
	}
	return false
}

// TestDedupeWeightedOnce: two files that overlap only in part for one rater and item keep
// that rater's weighted score of the item once.
func TestDedupeWeightedOnce(t *testing.T) {
	t.Parallel()
	w := func(v float64) *float64 { return &v }
	older := []*annotation{{TraceID: "s/t", Annotator: "u", Schemes: []*rubric{{Key: "q", Ratings: map[string]float64{"c": 5}, Weighted: w(5)}}}}
	newer := []*annotation{{TraceID: "s/t", Annotator: "u", Schemes: []*rubric{{Key: "q", Ratings: map[string]float64{"c": 5, "d": 1}, Weighted: w(4)}}}}
	seen := newSeen()
	src := &calibrate.Source{Ratings: 3}
	first := dedupe(older, seen, src)
	second := dedupe(newer, seen, src)
	weighted := 0
	for _, a := range append(first, second...) {
		for _, r := range a.Schemes {
			if r.Weighted != nil {
				weighted++
			}
		}
	}
	if weighted != 1 || len(second) != 1 || second[0].Schemes[0].Ratings["d"] != 1 || src.Ratings != 2 {
		t.Errorf("weighted scores kept %d (want 1); second %+v; source %+v", weighted, second, src)
	}
}
