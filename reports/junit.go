package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// JUnitOptions shape junit.xml.
type JUnitOptions struct {
	// Gate's FailOn decides whether borderline tests are <failure>s (gate.FailOnBorderline) or
	// pass.
	Gate gate.Decision
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	File      string      `xml:"file,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string    `xml:"classname,attr"`
	Name      string    `xml:"name,attr"`
	Time      string    `xml:"time,attr"`
	File      string    `xml:"file,attr,omitempty"`
	Line      int       `xml:"line,attr,omitempty"`
	Failure   *junitMsg `xml:"failure,omitempty"`
	Error     *junitMsg `xml:"error,omitempty"`
	Skipped   *junitMsg `xml:"skipped,omitempty"`
	SystemOut string    `xml:"system-out,omitempty"`
}

type junitMsg struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(max(ms, 0))/1000) }

// writeJUnit writes run as JUnit XML: a <testsuite> per suite and a <testcase> per test
// (classname = suite, name = test id). Failed tests (and borderline ones under
// gate.FailOnBorderline) carry a <failure> naming the failed criteria, errored tests an <error>
// with the cause, skipped tests <skipped/>; <system-out> lists every criterion's score. A suite
// that could not run becomes one errored testcase named "(suite)", and a gate that failed for
// a reason no test carries (a regression) one failed testcase "(gate)", so CI tools see them.
// Text is sanitized; encoding/xml replaces characters XML cannot carry.
func writeJUnit(w io.Writer, run *result.Run, opts JUnitOptions) error {
	if run == nil {
		run = &result.Run{}
	}
	out := junitSuites{Name: "evalgate"}
	var totalMS int64
	for _, s := range run.Suites {
		if s == nil {
			continue
		}
		js := junitSuite{Name: sanitize(s.Name), File: sanitize(s.Path)}
		var ms int64
		if s.Error != "" {
			js.Cases = append(js.Cases, junitCase{Classname: js.Name, Name: "(suite)", Time: seconds(0), File: js.File,
				Error: &junitMsg{Message: clip(s.Error, 500), Type: "setup", Body: sanitize(s.Error)}})
			js.Errors++
		}
		for _, t := range s.Tests {
			if t == nil {
				continue
			}
			if js.Timestamp == "" && !t.StartedAt.IsZero() {
				js.Timestamp = t.StartedAt.UTC().Format("2006-01-02T15:04:05")
			}
			jc := junitCaseOf(js.Name, t, opts.Gate.FailOn.Normal())
			switch {
			case jc.Failure != nil:
				js.Failures++
			case jc.Error != nil:
				js.Errors++
			case jc.Skipped != nil:
				js.Skipped++
			}
			ms += max(t.DurationMS, 0)
			js.Cases = append(js.Cases, jc)
		}
		js.Tests = len(js.Cases)
		js.Time = seconds(ms)
		totalMS += ms
		out.Tests += js.Tests
		out.Failures += js.Failures
		out.Errors += js.Errors
		out.Skipped += js.Skipped
		out.Suites = append(out.Suites, js)
	}
	if d := opts.Gate; d.Reason != "" && d.Failed() {
		// The gate failed for a reason no test carries (a regression against the baseline, a
		// carried-forward verdict): one failed "(gate)" case, so CI test reports are not green
		// while the gate is red.
		reason := sanitize(d.Reason)
		out.Suites = append(out.Suites, junitSuite{Name: "(gate)", Tests: 1, Failures: 1, Time: seconds(0),
			Cases: []junitCase{{Classname: "(gate)", Name: "(gate)", Time: seconds(0), Failure: &junitMsg{Message: clip(reason, 500), Type: "gate", Body: reason}}}})
		out.Tests++
		out.Failures++
	}
	out.Time = seconds(totalMS)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitCaseOf(suite string, t *result.TestResult, failOn gate.FailOn) junitCase {
	tv := &testView{t: t, rows: flatten(nil, t.Graders, "", countGraders(t.Graders) > 1, 0)}
	jc := junitCase{Classname: suite, Name: sanitize(t.Label()), Time: seconds(t.DurationMS), File: sanitize(t.File), Line: t.Line}
	var out strings.Builder
	fmt.Fprintf(&out, "verdict: %s", verdictPlain(t.Verdict, tv.gated()))
	if isScored(t.Verdict) {
		fmt.Fprintf(&out, ", score %s (pass ≥ %s)", score(t.Score), score(t.Threshold))
	}
	out.WriteString("\n")
	var failed []string
	var body strings.Builder
	for i := range tv.rows {
		r := &tv.rows[i]
		sc := "-"
		if r.scored() {
			sc = score(r.score)
		}
		fmt.Fprintf(&out, "%s: %s (%s, weight %s%s)\n", oneLine(r.label()), sc, verdictPlain(r.verdict, r.gated), weight(r.weight), reqWords(r))
		if r.leaf && (r.verdict != result.Pass || r.gated) && r.verdict != result.Skip {
			failed = append(failed, oneLine(r.label())+" ("+verdictPlain(r.verdict, r.gated)+")")
			fmt.Fprintf(&body, "%s: %s\n", oneLine(r.label()), oneLine(rowReason(r)))
		}
	}
	jc.SystemOut = sanitize(out.String())
	msg := "no criterion failed"
	if len(failed) > 0 {
		msg = "failed criteria: " + strings.Join(failed, ", ")
	}
	for _, g := range t.Gates {
		fmt.Fprintf(&body, "gate: %s\n", oneLine(g))
	}
	switch {
	case t.Verdict == result.Fail, t.Verdict == result.Borderline && failOn == gate.FailOnBorderline:
		typ := string(t.Verdict)
		if tv.gated() {
			typ = "gate"
		}
		jc.Failure = &junitMsg{Message: truncate(msg, 1000), Type: typ, Body: sanitize(body.String())}
	case t.Verdict == result.Skip:
		jc.Skipped = &junitMsg{Message: clip(t.Error, 500)}
	case t.Verdict != result.Pass && t.Verdict != result.Borderline:
		cause := orDefault(t.Error, "no result ("+verdictWord(t.Verdict)+")")
		jc.Error = &junitMsg{Message: clip(cause, 1000), Type: sanitize(t.FailureStage), Body: sanitize(cause + "\n" + body.String())}
	}
	return jc
}

// reqWords is ", required" or ", min 0.70" for a gated row.
func reqWords(r *row) string {
	switch {
	case r.minScore != nil:
		return ", min " + score(*r.minScore)
	case r.required:
		return ", required"
	}
	return ""
}
