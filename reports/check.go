package reports

import (
	"strings"

	"github.com/evalgate/evalgate/internal/gate"
)

// decided is the gate's decision to render: the caller's, or, when it made none (a zero
// Conclusion), what its fail_on (default fail) decides on the tests alone, with no baseline.
func decided(v *view, d gate.Decision) gate.Decision {
	if d.Conclusion == "" {
		return gate.Policy{FailOn: d.FailOn}.Decide(v.run, 0)
	}
	d.FailOn = d.FailOn.Normal()
	return d
}

// gatePolicy is the policy behind d, as the gate line shows it after the conclusion: fail_on,
// and the reason when the verdicts alone did not decide it. The reason is evalgate's own text.
func gatePolicy(d gate.Decision) string {
	if d.Reason != "" {
		return "fail_on: " + string(d.FailOn) + "; " + d.Reason
	}
	return "fail_on: " + string(d.FailOn)
}

// CheckOptions shape the check run's output.
type CheckOptions struct {
	// Gate is the gate's decision: the conclusion, and why, when regressions decided it. Zero
	// means what the default policy decides on the tests alone.
	Gate gate.Decision
	// RunURL links the workflow run; ReportHint says where the full report is.
	RunURL     string
	ReportHint string
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
	levelWarning = "warning"
)

// CheckRun renders the check run's output from r: Summary carries the headline, counts, criteria and
// the per-suite tables; Text carries the details (reasoning, assertions, answers) of the tests
// that did not pass; both fit MaxBytes. Annotations cover every failed, gated or errored
// criterion, grader, test and suite, and every borderline criterion, none left out (check-run.json
// keeps them all; the gate posts TopAnnotations). Their level is "failure" for gated and errored results
// and for failed criteria of failed tests, "warning" for borderline criteria and for failed
// optional criteria of tests that still passed or were borderline (a red mark on a green check
// misleads). A failed test none of whose rows earned a failure gets one on its own line. Lines
// come from the criterion, then its grader, then its test, then 1; a result with no file at all
// cannot be annotated and appears in Summary only.
func (r *Report) CheckRun(opts CheckOptions) CheckOutput {
	v := r.v
	limit := orLimit(opts.MaxBytes, MaxCheckTextBytes)
	d := decided(v, opts.Gate)
	base := mdConfig{runURL: opts.RunURL, reportHint: opts.ReportHint, gate: d, maxBytes: limit}
	sum := base
	sum.head, sum.crits, sum.tables = true, true, true
	text := base
	text.details, text.answerBytes, text.reasonBytes = true, 2000, 3000
	out := CheckOutput{
		Title:       checkTitle(v, d),
		Summary:     fit(newMarkdown(v, sum)),
		Conclusion:  d.Conclusion,
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

// checkTitle is the one-line title under the check's name: verdict, counts and score, after
// the reason the gate failed when the verdicts alone did not fail it.
func checkTitle(v *view, d gate.Decision) string {
	t := v.tally
	s := emoji(t.verdict()) + " " + phrase(t)
	if t.Scored > 0 {
		s += " · score " + score(t.mean())
	}
	if d.Reason != "" {
		s = d.Reason + "; " + s
	}
	return truncate(s, maxAnnotationTitleBytes)
}
