package reports

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// FailOn is the gate policy: which verdicts fail the check run.
type FailOn string

// Gate policies (the action's fail_on input).
const (
	// FailOnFail fails the check on any failed or errored test; borderline makes it neutral.
	FailOnFail FailOn = "fail"
	// FailOnBorderline fails the check on borderline tests too.
	FailOnBorderline FailOn = "borderline"
	// FailOnNever never fails the check: it is neutral when anything did not pass.
	FailOnNever FailOn = "never"
)

// ParseFailOn parses a fail_on value; "" means FailOnFail.
func ParseFailOn(s string) (FailOn, error) {
	switch f := FailOn(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return FailOnFail, nil
	case FailOnFail, FailOnBorderline, FailOnNever:
		return f, nil
	}
	return "", fmt.Errorf("fail_on %q: want fail, borderline or never", s)
}

// normal maps an unset or unknown policy to the default, FailOnFail.
func (f FailOn) normal() FailOn {
	if f == FailOnBorderline || f == FailOnNever {
		return f
	}
	return FailOnFail
}

// Check-run conclusions evalgate sets.
const (
	ConclusionSuccess = "success"
	ConclusionNeutral = "neutral"
	ConclusionFailure = "failure"
)

// Conclusion is the check run's conclusion for run under policy failOn:
//
//   - fail (default): failure if any test failed or errored (or a suite could not run), else
//     neutral if any is borderline, else success;
//   - borderline: failure if any test failed, errored or is borderline, else success;
//   - never: neutral if any test did not pass, else success.
//
// A run in which no test passed or failed (nothing ran, everything skipped) is neutral, never a
// silent success. Counts come from the tests, not from run.Summary.
func Conclusion(run *result.Run, failOn FailOn) string { return conclusion(newView(run, nil), failOn) }

func conclusion(v *view, f FailOn) string {
	t := v.tally
	bad := t.Failed + t.Errors + t.SuiteErrors
	if b := v.run.Budget; b != nil {
		// Tests cut by the budget were never checked: the gate cannot call that a pass.
		bad += b.NotRun
	}
	switch f.normal() {
	case FailOnNever:
		if bad+t.Borderline > 0 {
			return ConclusionNeutral
		}
	case FailOnBorderline:
		if bad+t.Borderline > 0 {
			return ConclusionFailure
		}
	default:
		if bad > 0 {
			return ConclusionFailure
		}
		if t.Borderline > 0 {
			return ConclusionNeutral
		}
	}
	if t.Passed == 0 {
		return ConclusionNeutral
	}
	return ConclusionSuccess
}

// CheckOptions shape the check run's output.
type CheckOptions struct {
	// Title names the run in the summary's headline (default "evalgate").
	Title string
	// FailOn is the gate policy deciding the conclusion (default FailOnFail).
	FailOn FailOn
	// RunURL links the workflow run; ReportHint says where the full report is.
	RunURL     string
	ReportHint string
	// Baseline, when set, adds Δ columns and the regressions list.
	Baseline *Comparison
	// RepoRoot, when set, makes absolute eval-file paths relative for annotations.
	RepoRoot string
	// MaxBytes is the budget of Summary and of Text, each (default MaxCheckTextBytes).
	MaxBytes int
}

// CheckOutput is a check run's result, shaped like the Checks API's output object plus the
// conclusion; check-run.json is this, as JSON.
type CheckOutput struct {
	Title       string       `json:"title"`
	Summary     string       `json:"summary"`
	Text        string       `json:"text"`
	Conclusion  string       `json:"conclusion"`
	Annotations []Annotation `json:"annotations"`
}

// Annotation is one check-run annotation on an eval file line. Level is "failure" or
// "warning"; Title is at most 255 bytes and Message and RawDetails at most 64 KiB.
type Annotation struct {
	Path       string `json:"path"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	Level      string `json:"annotation_level"`
	Title      string `json:"title"`
	Message    string `json:"message"`
	RawDetails string `json:"raw_details,omitempty"`
	// rank orders annotations by importance for TopAnnotations (0 = most important).
	rank int
}

// Annotation levels.
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
)

// CheckRun renders the check run's output: Summary carries the headline, counts, criteria and
// the per-suite tables; Text carries the details (reasoning, assertions, answers) of the tests
// that did not pass; both fit MaxBytes. Annotations cover every failed, gated or errored
// criterion, grader, test and suite, and every borderline criterion, none left out (check-run.json
// keeps them all; the gate posts TopAnnotations). Their level is "failure" for gated and errored results
// and for failed criteria of failed tests, "warning" for borderline criteria and for failed
// optional criteria of tests that still passed or were borderline (a red mark on a green check
// misleads). A failed test none of whose rows earned a failure gets one on its own line. Lines
// come from the criterion, then its grader, then its test, then 1; a result with no file at all
// cannot be annotated and appears in Summary only.
func CheckRun(run *result.Run, opts CheckOptions) CheckOutput {
	return NewReport(run, opts.Baseline).CheckRun(opts)
}

// CheckRun renders the check run's output from r's view (see the package-level CheckRun);
// opts.Baseline is ignored: r was compared when it was made.
func (r *Report) CheckRun(opts CheckOptions) CheckOutput {
	v := r.v
	limit := orLimit(opts.MaxBytes, MaxCheckTextBytes)
	base := mdConfig{title: opts.Title, runURL: opts.RunURL, reportHint: opts.ReportHint, failOn: opts.FailOn, maxBytes: limit}
	sum := base
	sum.head, sum.crits, sum.tables = true, true, true
	text := base
	text.details, text.answerBytes, text.reasonBytes = true, 2000, 3000
	out := CheckOutput{
		Title:       checkTitle(v),
		Summary:     fit(newMarkdown(v, sum)),
		Conclusion:  conclusion(v, opts.FailOn),
		Annotations: annotations(v, opts.RepoRoot),
	}
	if t := fit(newMarkdown(v, text)); strings.TrimSpace(t) != "" {
		out.Text = strings.TrimPrefix(t, "\n")
	}
	if out.Annotations == nil {
		out.Annotations = []Annotation{}
	}
	return out
}

// checkTitle is the one-line title under the check's name: verdict, counts and score.
func checkTitle(v *view) string {
	t := v.tally
	s := emoji(t.verdict()) + " " + phrase(t)
	if t.Scored > 0 {
		s += " · score " + score(t.mean())
	}
	return truncate(s, MaxAnnotationTitleBytes)
}
