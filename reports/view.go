package reports

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// The view is what every renderer draws: the run's tests flattened into rows (one per
// criterion, or per grader without criteria), ordered for reading, with counts recomputed from
// the tests themselves so a stale Summary can never make a failing run look green.

// maxDepth bounds composite nesting, so even a cyclic hand-built model cannot loop forever.
const maxDepth = 8

// severity orders verdicts for reading: failures first (gate failures before plain ones), then
// errors, borderline, skipped and passed. An unknown verdict sorts with errors: it is no pass.
func severity(v result.Verdict, gated bool) int {
	switch v {
	case result.Fail:
		if gated {
			return 0
		}
		return 1
	case result.Borderline:
		return 3
	case result.Skip:
		return 4
	case result.Pass:
		return 5
	}
	return 2
}

// tally counts tests by verdict. Unknown verdicts count as errors.
type tally struct {
	Total       int
	Passed      int
	Borderline  int
	Failed      int
	Errors      int
	Skipped     int
	Gated       int // failed tests that a required criterion or grader failed
	SuiteErrors int // suites that could not be loaded or set up
	Scored      int // tests with a score (not error or skip)
	Sum         float64
	Usage       result.Usage
	DurationMS  int64
}

func (t *tally) add(tr *result.TestResult) {
	t.Total++
	switch tr.Verdict {
	case result.Pass:
		t.Passed++
	case result.Borderline:
		t.Borderline++
	case result.Fail:
		t.Failed++
		if len(tr.Gates) > 0 {
			t.Gated++
		}
	case result.Skip:
		t.Skipped++
	default:
		t.Errors++
	}
	if tr.Verdict == result.Pass || tr.Verdict == result.Borderline || tr.Verdict == result.Fail {
		t.Scored++
		t.Sum += finite(tr.Score)
	}
	t.Usage.Add(tr.Usage)
	t.DurationMS += max(tr.DurationMS, 0)
}

// mean is the mean score over scored tests (0 when none).
func (t tally) mean() float64 {
	if t.Scored == 0 {
		return 0
	}
	return t.Sum / float64(t.Scored)
}

// verdict is the worst verdict (by result.Verdict.Rank); a suite error counts as an error and
// an empty run has no verdict.
func (t tally) verdict() result.Verdict {
	switch {
	case t.Errors > 0 || t.SuiteErrors > 0:
		return result.Error
	case t.Failed > 0:
		return result.Fail
	case t.Borderline > 0:
		return result.Borderline
	case t.Passed > 0:
		return result.Pass
	case t.Skipped > 0:
		return result.Skip
	}
	return ""
}

// testView is one test with its rows, in reading order.
type testView struct {
	t     *result.TestResult
	suite *suiteView
	pos   int // index in the suite's test list, as run
	rows  []row
	sev   int
	prio  int // rank in the run-wide priority order (0 = most important)
	delta *compare.TestDelta
	// answer is the sanitized, trimmed answer, computed once for every renderer (which may
	// draw concurrently).
	answer     string
	answerOnce sync.Once
}

// cleanAnswer is tv's answer sanitized and trimmed ("" without output).
func (tv *testView) cleanAnswer() string {
	tv.answerOnce.Do(func() {
		if tv.t.Output != nil {
			tv.answer = strings.TrimSpace(sanitize(tv.t.Output.Answer))
		}
	})
	return tv.answer
}

func (tv *testView) gated() bool { return len(tv.t.Gates) > 0 }

// regressed reports whether the baseline comparison marks tv a regression, or a drop that is
// not significant: either is news to a reader even when the test passes.
func (tv *testView) regressed() bool {
	d := tv.delta
	return d != nil && (d.Change == compare.Regression || d.Change == compare.Changed && d.Delta != nil && *d.Delta < 0)
}

// foldable reports whether tv may fold into its suite's count of passing tests.
func (tv *testView) foldable() bool {
	return tv.t.Verdict == result.Pass && !tv.regressed() && !tv.flaky()
}

// flaky reports whether the test's trials disagreed.
func (tv *testView) flaky() bool { return tv.t.TrialSummary != nil && tv.t.TrialSummary.Flaky }

// note is the test's one-line reason: its error, or the gates that failed it.
func (tv *testView) note() string {
	t := tv.t
	if tr := trialsNote(t.TrialSummary); tr != "" {
		if rest := tv.plainNote(); rest != "" {
			return tr + "; " + rest
		}
		return tr
	}
	return tv.plainNote()
}

// plainNote is the note of a single run: its error or its gates, then what evalgate noticed
// running the agent (the background processes it killed).
func (tv *testView) plainNote() string {
	note := tv.verdictNote()
	if out := tv.t.Output; out != nil {
		for _, n := range out.Notes {
			if note != "" {
				note += "; "
			}
			note += "note: " + n
		}
	}
	return note
}

// verdictNote is why a single run has its verdict: its error or its gates.
func (tv *testView) verdictNote() string {
	t := tv.t
	if t.Error != "" {
		if t.FailureStage != "" {
			return t.FailureStage + ": " + t.Error
		}
		return t.Error
	}
	if len(t.Gates) > 0 {
		s := "gate: " + t.Gates[0]
		for _, g := range t.Gates[1:] {
			s += "; " + g
		}
		return s
	}
	return ""
}

// suiteView is one suite with its tests worst first.
type suiteView struct {
	s       *result.SuiteResult
	idx     int
	tests   []*testView
	tally   tally
	removed []*compare.TestDelta // tests only the baseline had
}

// critStat aggregates one criterion (or criterion-less grader) across a suite's tests.
type critStat struct {
	suite, path, crit string
	// outcome is the criterion's text; shown when another criterion of the suite has the same
	// id (AgentV's rubric-1 of two tests are two criteria), else "".
	outcome string
	n       int
	scored  int
	passes  int
	denom   int // n minus skips: errors count against the pass rate
	sum     float64
	first   int
}

func (c *critStat) mean() float64 {
	if c.scored == 0 {
		return 0
	}
	return c.sum / float64(c.scored)
}

func (c *critStat) passRate() float64 {
	if c.denom == 0 {
		return 0
	}
	return float64(c.passes) / float64(c.denom)
}

// view is a run prepared for rendering.
type view struct {
	run    *result.Run
	tally  tally
	suites []*suiteView
	order  []*testView // every test, most important first
	crits  []*critStat // worst pass rate first
	cmp    *compare.Comparison
}

func newView(run *result.Run, cmpr *compare.Comparison) *view {
	if run == nil {
		run = &result.Run{}
	}
	v := &view{run: run, cmp: cmpr}
	type statKey struct {
		suite      int
		path, crit string
		outcome    string // ids like rubric-1 are generated per test: the text tells them apart
	}
	ids := map[statKey]int{} // criteria per id (outcome left out)
	stats := map[statKey]*critStat{}
	for si, s := range run.Suites {
		if s == nil {
			continue
		}
		sv := &suiteView{s: s, idx: si}
		if s.Error != "" {
			sv.tally.SuiteErrors++
			v.tally.SuiteErrors++
		}
		for ti, t := range s.Tests {
			if t == nil {
				continue
			}
			tv := &testView{t: t, suite: sv, pos: ti, sev: severity(t.Verdict, len(t.Gates) > 0)}
			if tv.flaky() {
				tv.sev -= flakyFirst
			}
			tv.rows = flatten(nil, t.Graders, "", countGraders(t.Graders) > 1, 0)
			if cmpr != nil {
				tv.delta = cmpr.Test(s.Name, t.Label())
				if tv.regressed() {
					tv.sev = min(tv.sev, severity(result.Borderline, false)) // a regression is news even if it passes
				}
			}
			sv.tests = append(sv.tests, tv)
			sv.tally.add(t)
			v.tally.add(t)
			for i := range tv.rows {
				r := &tv.rows[i]
				if !r.leaf {
					continue
				}
				key := statKey{si, r.path, r.crit, ""}
				if r.c != nil {
					key.outcome = r.c.Outcome
				}
				st := stats[key]
				if st == nil {
					st = &critStat{suite: s.Name, path: r.path, crit: r.crit, outcome: key.outcome, first: len(stats)}
					stats[key] = st
					v.crits = append(v.crits, st)
					ids[statKey{si, r.path, r.crit, ""}]++
				}
				st.n++
				if r.verdict != result.Skip {
					st.denom++
				}
				if r.verdict == result.Pass {
					st.passes++
				}
				if r.scored() {
					st.scored++
					st.sum += finite(r.score)
				}
			}
		}
		slices.SortStableFunc(sv.tests, func(a, b *testView) int { return cmp.Compare(a.sev, b.sev) })
		if cmpr != nil {
			sv.removed = removedIn(cmpr, s.Name)
		}
		v.suites = append(v.suites, sv)
		v.order = append(v.order, sv.tests...)
	}
	slices.SortStableFunc(v.order, func(a, b *testView) int { return cmp.Compare(a.sev, b.sev) })
	for i, tv := range v.order {
		tv.prio = i
	}
	for key, st := range stats {
		if key.outcome = ""; ids[key] < 2 {
			st.outcome = ""
		}
	}
	slices.SortStableFunc(v.crits, func(a, b *critStat) int {
		return cmp.Or(cmp.Compare(a.passRate(), b.passRate()), cmp.Compare(a.mean(), b.mean()), cmp.Compare(a.first, b.first))
	})
	v.tally.DurationMS = run.Summary.DurationMS
	if d := run.FinishedAt.Sub(run.StartedAt).Milliseconds(); v.tally.DurationMS == 0 && d > 0 {
		v.tally.DurationMS = d
	}
	return v
}
