package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/golden"
)

func calibrationFixture() *calibrate.Report {
	in := calibrate.Input{}
	for i := range 12 {
		v, item := float64(1+i%4), fmt.Sprintf("t%d", i)
		in.Humans = append(in.Humans,
			calibrate.Rating{Item: item, Rater: "a", Criterion: "ok", Value: v},
			calibrate.Rating{Item: item, Rater: "b", Criterion: "ok", Value: v},
			calibrate.Rating{Item: item, Rater: "a", Criterion: "evil|<b>@team\x1b[31m", Value: 3})
		in.Judge = append(in.Judge, calibrate.Rating{Item: item, Criterion: "ok", Value: v})
	}
	for i := 0; i < 12; i++ {
		in.Humans = append(in.Humans, calibrate.Rating{Item: fmt.Sprintf("gone%02d", i), Rater: "a", Criterion: "ok", Value: 1})
	}
	return calibrate.Compute(in)
}

func TestCalibrationRenderers(t *testing.T) {
	t.Parallel()
	rep := calibrationFixture()
	var table bytes.Buffer
	if err := CalibrationTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	md := CalibrationMarkdown(rep)
	var js bytes.Buffer
	if err := WriteCalibrationJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, out string
		want      []string
		not       []string
	}{
		{"table", table.String(),
			[]string{"ok ", "1.000 [1.00, 1.00]", "judge trustworthy", "n/a", "not enough data", "12 annotated items are not in the results", "gone00", "and 2 more", "percentile bootstrap over items, 1000 resamples"},
			[]string{"\x1b", "gone11"}},
		{"markdown", md,
			[]string{"| ok | 12 (12 multi) | 1.000 [1.00, 1.00] |", "evil\\|&lt;b&gt;@&#8203;team", "| n/a |", "- **ok**: judge trustworthy"},
			[]string{"<b>", "\x1b", "|<b>"}},
		{"json", js.String(),
			[]string{`"verdict": "judge trustworthy"`, `"value": null`, `"undefined": "no item has two ratings"`, `"ci": {`, `"low": 1`, `"resamples": 1000`, `"min_items": 10`},
			[]string{"NaN"}},
	}
	for _, tt := range tests {
		for _, w := range tt.want {
			if !strings.Contains(tt.out, w) {
				t.Errorf("%s lacks %q:\n%s", tt.name, w, tt.out)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(tt.out, n) {
				t.Errorf("%s contains %q:\n%s", tt.name, n, tt.out)
			}
		}
	}
	checkMarkdown(t, md, false)
	golden.Check(t, goldenPath("calibration.txt"), table.String(), *update)
	golden.Check(t, goldenPath("calibration.md"), md, *update)
	var back calibrate.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Criteria) != 2 {
		t.Errorf("JSON does not read back: %v", err)
	}
}

// TestCalibrationHumansOnly renders human–human agreement without the judge's columns.
func TestCalibrationHumansOnly(t *testing.T) {
	t.Parallel()
	in := calibrate.Input{HumansOnly: true}
	for i := range 12 {
		v, item := float64(1+i%4), fmt.Sprintf("t%d", i)
		in.Humans = append(in.Humans,
			calibrate.Rating{Item: item, Rater: "a", Criterion: "ok", Value: v},
			calibrate.Rating{Item: item, Rater: "b", Criterion: "ok", Value: v},
			calibrate.Rating{Item: item, Rater: "a", Criterion: "few", Value: v})
	}
	rep := calibrate.Compute(in)
	var table bytes.Buffer
	if err := CalibrationTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	md := CalibrationMarkdown(rep)
	for name, out := range map[string]string{"table": table.String(), "markdown": md} {
		for _, w := range []string{"uman–human agreement", "2 annotators, 12 items", "12 (12 multi)", "1.000 [1.00, 1.00]", "humans agree", "12 (0 multi)", "not enough data"} {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, out)
			}
		}
		for _, n := range []string{"j–h", "exact", "not in the results"} {
			if strings.Contains(out, n) {
				t.Errorf("%s shows %q with humans only:\n%s", name, n, out)
			}
		}
	}
	checkMarkdown(t, md, false)
}

func TestCalibrationSources(t *testing.T) {
	t.Parallel()
	rep := calibrationFixture()
	rep.Sources = []*calibrate.Source{
		{Path: "a/user_state.json", Format: "potato user_state.json", Ratings: 4},
		{Path: "export/annotations.jsonl", Ratings: 0, Skipped: []*calibrate.Skip{{Reason: "already read from another file", Count: 4}}},
		{Path: "b/user_state.json", Ratings: 2, Skipped: []*calibrate.Skip{{Reason: "scheme \"<x>\" is not one the export wrote", Count: 1}, {Reason: "already read from another file", Count: 1}}},
	}
	md := CalibrationMarkdown(rep)
	want := "Read 6 ratings from 2 of 3 annotation files; skipped 5: already read from another file, 1: scheme \"&lt;x&gt;\" is not one the export wrote."
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
	var b bytes.Buffer
	if err := CalibrationTable(&b, rep); err != nil || !strings.Contains(b.String(), "Read 6 ratings from 2 of 3 annotation files") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}
