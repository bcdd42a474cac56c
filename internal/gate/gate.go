// Package gate decides whether a finished run passes the merge gate: the fail_on policy, the
// check-run conclusion, and fail_on_regression. It sits between scoring and reporting: drivers
// decide once, and every renderer shows that one Decision, so the table, the comment, the check
// run and check-run.json can never disagree.
//
//	fail_on     success          neutral                         failure
//	fail        all passed       some borderline, none failed    any failed or errored
//	borderline  all passed       —                               any failed, errored or borderline
//	never       all passed       anything did not pass           —
//
// A suite that could not run counts as an error, and so does a test the budget cut (it was
// never checked). A run in which no test passed (nothing ran, all skipped) is neutral, never a
// silent success. Counts come from the tests, never from run.Summary, and an unknown verdict
// counts as an error: nothing can make a failing run look green.
//
// A partial rerun is decided on two inputs: its run, and the gate state the previous check
// run on the commit recorded (state.go, block.go), so that suites it did not regrade keep
// their verdicts.
package gate

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// FailOn is the gate policy: which verdicts fail the gate.
type FailOn string

// Gate policies (the action's fail_on input, the CLI's --fail-on).
const (
	// FailOnFail fails the gate on any failed or errored test; borderline makes it neutral.
	FailOnFail FailOn = "fail"
	// FailOnBorderline fails the gate on borderline tests too.
	FailOnBorderline FailOn = "borderline"
	// FailOnNever never fails the gate: it is neutral when anything did not pass.
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

// Normal maps an unset or unknown policy to the default, FailOnFail.
func (f FailOn) Normal() FailOn {
	if f == FailOnBorderline || f == FailOnNever {
		return f
	}
	return FailOnFail
}

// Conclusions, as the Checks API spells them.
const (
	Success   = "success"
	Neutral   = "neutral"
	Failure   = "failure"
	Cancelled = "cancelled"
)

// Fails reports whether a conclusion fails the gate: anything but success or neutral
// (failure, cancelled, or a conclusion evalgate does not know).
func Fails(conclusion string) bool { return conclusion != Success && conclusion != Neutral }

// Policy is how a run is gated.
type Policy struct {
	FailOn FailOn
	// FailOnRegression fails the gate when the comparison with a baseline found a regression
	// that is significant after its family-wise correction: a test, or the run as a whole
	// (the pooled test). A change that is not significant never fails it.
	FailOnRegression bool
	// RegressionAlpha is the family-wise level of the baseline comparison: the chance that
	// an unchanged pull request fails the regression gate (0: the default, 0.05).
	RegressionAlpha float64
}

// Decision is the gate's verdict on one run.
type Decision struct {
	// Conclusion is Success, Neutral or Failure.
	Conclusion string
	// FailOn is the policy applied (normalized: never "").
	FailOn FailOn
	// Regressions is how many significant test regressions against the baseline the
	// decision saw.
	Regressions int
	// Pooled is true when the pooled test over all tests found the run worse than the
	// baseline.
	Pooled bool
	// Reason says why the gate failed when the test verdicts alone would not have failed it
	// (e.g. "2 regression(s) against the baseline"); "" otherwise.
	Reason string
}

// Failed reports whether the decision fails the gate.
func (d Decision) Failed() bool { return Fails(d.Conclusion) }

// Decide gates run under p; regressions is the number of significant test regressions
// against the baseline (0 without one).
func (p Policy) Decide(run *result.Run, regressions int) Decision {
	return p.DecideRegressions(run, Regressions{Tests: regressions})
}

// Regressions is what a baseline comparison found, after its family-wise correction.
type Regressions struct {
	// Tests is how many tests regressed significantly.
	Tests int
	// Pooled is true when the pooled test over all tests found the run worse.
	Pooled bool
}

// DecideRegressions gates run under p with the significant regressions r.
func (p Policy) DecideRegressions(run *result.Run, r Regressions) Decision {
	d := Decision{Conclusion: conclusion(countRun(run), p.FailOn), FailOn: p.FailOn.Normal(), Regressions: r.Tests, Pooled: r.Pooled}
	if p.FailOnRegression && (r.Tests > 0 || r.Pooled) && d.Conclusion != Failure {
		d.Conclusion = Failure
		switch {
		case r.Tests > 0:
			d.Reason = fmt.Sprintf("%d significant regression(s) against the baseline", r.Tests)
		default:
			d.Reason = "the run as a whole regressed significantly against the baseline"
		}
	}
	return d
}

// suite is the conclusion a run of suite s alone would get under p's fail_on (regressions
// are the run's, not a suite's, so they play no part). Tests the budget cut count against the
// suite that lost them.
func (p Policy) suite(run *result.Run, s *result.SuiteResult) string {
	one := &result.Run{Suites: []*result.SuiteResult{s}}
	if run != nil && run.Budget != nil && run.Budget.NotRun > 0 {
		n := 0
		if s != nil {
			for _, t := range s.Tests {
				if t != nil && t.Verdict == result.Skip {
					n++
				}
			}
		}
		one.Budget = &result.Budget{NotRun: n}
	}
	return conclusion(countRun(one), p.FailOn)
}

// counts are the tests of a run by verdict, as the gate sees them.
type counts struct {
	passed, borderline int
	// bad are failed and errored tests (an unknown verdict is an error), suites that could
	// not run, and tests the budget cut.
	bad int
}

// countRun counts run's tests. Every test result counts once: a matrix row, a test run in
// trials (by its combined verdict) and a conversation (by its own verdict, not its turns').
func countRun(run *result.Run) counts {
	var c counts
	if run == nil {
		return c
	}
	for _, s := range run.Suites {
		if s == nil {
			continue
		}
		if s.Error != "" {
			c.bad++
		}
		for _, t := range s.Tests {
			if t == nil {
				continue
			}
			switch t.Verdict {
			case result.Pass:
				c.passed++
			case result.Borderline:
				c.borderline++
			case result.Skip:
			default:
				c.bad++
			}
		}
	}
	if run.Budget != nil {
		// Tests cut by the budget were never checked: the gate cannot call that a pass.
		c.bad += run.Budget.NotRun
	}
	return c
}

// conclusion applies fail_on to the counts.
func conclusion(c counts, f FailOn) string {
	switch f.Normal() {
	case FailOnNever:
		if c.bad+c.borderline > 0 {
			return Neutral
		}
	case FailOnBorderline:
		if c.bad+c.borderline > 0 {
			return Failure
		}
	default:
		if c.bad > 0 {
			return Failure
		}
		if c.borderline > 0 {
			return Neutral
		}
	}
	if c.passed == 0 {
		return Neutral
	}
	return Success
}
