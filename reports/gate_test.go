package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalgate/evalgate/internal/gate"
)

// TestRegressionDecisionRendersFailureEverywhere: a passing run that fail_on_regression failed
// says failure in the table, the comment, the summary, the check run and check-run.json, each
// from the one decision, with the reason in the check's title.
func TestRegressionDecisionRendersFailureEverywhere(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "all-pass")
	if got := (gate.Policy{}).Decide(run, 0).Conclusion; got != gate.Success {
		t.Fatalf("fixture all-pass concludes %s, want success", got)
	}
	d := gate.Policy{FailOn: gate.FailOnFail, FailOnRegression: true}.Decide(run, 2)
	const reason = "2 significant regression(s) against the baseline"
	if d.Conclusion != gate.Failure || d.Reason != reason || d.Regressions != 2 {
		t.Fatalf("decision %+v", d)
	}
	rep := NewReport(run, nil)
	const gateLine = "Gate: **failure** (fail_on: fail; " + reason + ")"
	if c := rep.Comment(CommentOptions{Gate: d}); !strings.Contains(c, gateLine) {
		t.Errorf("comment lacks %q:\n%s", gateLine, c)
	}
	if s := rep.StepSummary(SummaryOptions{Gate: d}); !strings.Contains(s, gateLine) {
		t.Errorf("summary lacks %q:\n%s", gateLine, s)
	}
	var tbl bytes.Buffer
	if err := rep.Table(&tbl, TableOptions{Gate: d}); err != nil || !strings.Contains(tbl.String(), "gate: FAILURE (fail_on: fail; "+reason+")") {
		t.Errorf("table (%v):\n%s", err, tbl.String())
	}
	var junit bytes.Buffer
	if err := writeJUnit(&junit, run, JUnitOptions{Gate: d}); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatalf("junit.xml: %v\n%s", err, junit.String())
	}
	var gateFailures []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Classname == "(gate)" && c.Failure != nil {
				gateFailures = append(gateFailures, c.Failure.Type+": "+c.Failure.Message)
			}
		}
	}
	if diff := cmp.Diff([]string{"gate: " + reason}, gateFailures); diff != "" {
		t.Errorf("junit.xml's failed (gate) cases (-want +got):\n%s", diff)
	}
	var plain bytes.Buffer
	if err := writeJUnit(&plain, run, JUnitOptions{}); err != nil || strings.Contains(plain.String(), "(gate)") {
		t.Errorf("junit.xml of a passing gate (%v) has a (gate) case:\n%s", err, plain.String())
	}
	co := rep.CheckRun(CheckOptions{Gate: d})
	if co.Conclusion != gate.Failure || !strings.HasPrefix(co.Title, reason+"; ") || !strings.Contains(co.Summary, gateLine) {
		t.Errorf("check run: %s %q", co.Conclusion, co.Title)
	}
	dir := t.TempDir()
	if err := rep.WriteAll(dir, FilesOptions{Comment: CommentOptions{Gate: d}, Summary: SummaryOptions{Gate: d}, Check: CheckOptions{Gate: d}, JUnit: JUnitOptions{Gate: d}}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, FileCheckRun))
	if err != nil {
		t.Fatal(err)
	}
	var file CheckOutput
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("check-run.json: %v", err)
	}
	if diff := cmp.Diff(co, file, cmpopts.IgnoreUnexported(Annotation{})); diff != "" {
		t.Errorf("check-run.json is not the check run (-check run +file):\n%s", diff)
	}
}

// TestDecisionWithoutReasonKeepsTheTitle: when the verdicts decided the gate (or no decision
// was made), the title is the verdicts' own and the policy line names fail_on alone.
func TestDecisionWithoutReasonKeepsTheTitle(t *testing.T) {
	t.Parallel()
	run := loadRun(t, "mixed")
	rep := NewReport(run, nil)
	zero := rep.CheckRun(CheckOptions{})
	d := gate.Policy{FailOnRegression: true}.Decide(run, 3) // mixed fails on its own
	co := rep.CheckRun(CheckOptions{Gate: d})
	if d.Reason != "" || co.Title != zero.Title || co.Conclusion != gate.Failure || zero.Conclusion != gate.Failure {
		t.Errorf("decided %+v: title %q (zero: %q), conclusion %s", d, co.Title, zero.Title, co.Conclusion)
	}
	never := rep.Comment(CommentOptions{Gate: gate.Policy{FailOn: gate.FailOnNever}.Decide(run, 0)})
	if !strings.Contains(never, "Gate: **neutral** (fail_on: never)") {
		t.Errorf("comment under never:\n%s", never)
	}
}
