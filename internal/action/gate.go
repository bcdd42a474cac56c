package action

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// A partial rerun ("/evalgate rerun <glob>") grades some suites of a commit. Its check run
// replaces the gate's previous one, so it must not forget the suites it did not grade: every
// completed check run records the gate's per-suite state in a hidden block at the end of its
// summary, and a partial rerun carries forward the verdicts of the suites it did not re-grade.

// statePrefix opens the hidden state block; it is the last thing in a check run's summary.
const statePrefix = "<!-- evalgate:state "

// gateState is what a completed check run says about the gate on its commit.
type gateState struct {
	Version int `json:"v"`
	// Blocking are the suites whose conclusion was not success, by path.
	Blocking map[string]suiteGate `json:"blocking"`
	// Ran are the suites this check run graded; Carried those it took from an earlier one.
	Ran     []string `json:"ran"`
	Carried []string `json:"carried,omitempty"`
	// Incomplete says the conclusion rests on more than the listed suites (a baseline
	// regression, a budget cut, a partial rerun that could not read the gate before it), so a
	// later partial rerun cannot vouch for the commit.
	Incomplete bool `json:"incomplete,omitempty"`
}

// suiteGate is one suite's part in the gate.
type suiteGate struct {
	Conclusion string         `json:"conclusion"`
	Verdict    result.Verdict `json:"verdict"`
}

// maxStateBytes bounds the state block, which shares the check run's 64 KiB summary with the
// results.
const maxStateBytes = 16 << 10

// block renders the state as the hidden HTML comment appended to the check run's summary.
// json.Marshal escapes <, > and &, so no path can close the comment early. A state too large
// to record drops the list of suites that ran, then gives up on per-suite verdicts: an
// incomplete state only makes later partial reruns ask for a full one.
func (s gateState) block() string {
	b, _ := json.Marshal(s) // strings and maps of strings always marshal
	if len(b) > maxStateBytes {
		s.Ran = nil
		if b, _ = json.Marshal(s); len(b) > maxStateBytes {
			b, _ = json.Marshal(gateState{Version: 1, Incomplete: true})
		}
	}
	return "\n\n" + statePrefix + string(b) + " -->"
}

// parseState reads the state block at the very end of a check run's summary. Only the end
// counts: model text quoted earlier in the summary cannot forge it.
func parseState(summary string) (*gateState, bool) {
	summary = strings.TrimRight(summary, " \t\r\n")
	i := strings.LastIndex(summary, statePrefix)
	if i < 0 || !strings.HasSuffix(summary, " -->") {
		return nil, false
	}
	var s gateState
	raw := strings.TrimSuffix(summary[i+len(statePrefix):], " -->")
	if err := json.Unmarshal([]byte(raw), &s); err != nil || s.Version != 1 {
		return nil, false
	}
	return &s, true
}

// previous is the gate's latest check run on a commit, read before a partial rerun opens its
// own.
type previous struct {
	read       bool   // false: it could not be read (err)
	found      bool   // a check run of that name exists on the commit
	conclusion string // empty while it is not completed
	state      *gateState
	err        error
}

// previousGate reads the latest check run named like the gate on sha.
func (d *Deps) previousGate(ctx context.Context, in Inputs, sha string) previous {
	runs, err := d.Source.ListCheckRuns(ctx, sha, github.ListCheckRunsOptions{CheckName: in.CheckName, Latest: true})
	if err != nil {
		d.logf("evalgate: cannot read the previous %s check run on %s: %v", in.CheckName, sha, err)
		return previous{err: err}
	}
	pv := previous{read: true}
	if len(runs) == 0 {
		d.logf("evalgate: no earlier %s check run on %s", in.CheckName, sha)
		return pv
	}
	latest := slices.MaxFunc(runs, func(a, b github.CheckRun) int { return cmp.Compare(a.ID, b.ID) })
	pv.found = true
	if latest.Status == "completed" {
		pv.conclusion = latest.Conclusion
	}
	pv.state, _ = parseState(latest.Summary)
	d.logf("evalgate: previous %s check run %d on %s: %s %s, gate state recorded: %v", in.CheckName, latest.ID, sha, latest.Status, latest.Conclusion, pv.state != nil)
	return pv
}

// commitGate is a run's conclusion as the merge gate sees it on its commit.
type commitGate struct {
	state gateState
	// carried are the suites not graded now whose verdicts come from the previous run.
	carried map[string]suiteGate
	// unknown: a partial rerun that could not learn the gate before it cannot pass it.
	unknown bool
	// worst is the most blocking per-suite conclusion of the suites graded now.
	worst string
	// cancelled is the interruption that cut the run short; such a check records no state.
	cancelled error
	note      string // Markdown for the comment, the summary and the check run
}

// newGate computes the per-suite state of a finished run under policy and, for a partial
// rerun, carries forward what the previous check run recorded.
func newGate(run *result.Run, policy gate.Policy, p plan, rerun string, cancelled error, cancelledAt time.Time) *commitGate {
	g := &commitGate{cancelled: cancelled, carried: map[string]suiteGate{}, worst: gate.Success,
		state: gateState{Version: 1, Blocking: map[string]suiteGate{}, Ran: []string{}}}
	if cancelled != nil {
		g.note = cancelNote(run, cancelled, cancelledAt)
		return g
	}
	for _, s := range run.Suites {
		g.state.Ran = append(g.state.Ran, s.Path)
		c := policy.Suite(run, s)
		g.worst = worse(g.worst, c)
		if c != gate.Success {
			g.state.Blocking[s.Path] = suiteGate{Conclusion: c, Verdict: s.Summary.Verdict}
		}
	}
	if p.only == "" {
		return g
	}
	pv := p.prev
	switch {
	case pv.state != nil && !pv.state.Incomplete:
		for path, sg := range pv.state.Blocking {
			if !slices.Contains(g.state.Ran, path) {
				g.carried[path] = sg
				g.state.Blocking[path] = sg
				g.state.Carried = append(g.state.Carried, path)
			}
		}
		sort.Strings(g.state.Carried)
	case pv.read && pv.state == nil && pv.conclusion == gate.Success:
		// A success from before gate states were recorded: nothing to carry.
	default:
		g.unknown = true
		g.state.Incomplete = true
	}
	g.note = rerunNote(p, g, pv, rerun)
	return g
}

// decide is the gate's decision on the commit, made before anything is rendered so that the
// comment, the summary, the table and the check run all show it: the run's own decision (its
// tests, its regressions), then a cancel, an unknown gate before a partial rerun, or verdicts
// carried forward from suites this partial rerun did not regrade.
func (g *commitGate) decide(own gate.Decision, rerun string) gate.Decision {
	// The suites alone must explain the conclusion (no regression or budget verdict on top)
	// for a later partial rerun to build on this state.
	if worse(g.worst, own.Conclusion) != g.worst {
		g.state.Incomplete = true
	}
	d := own
	because := func(reason string) {
		if d.Reason != "" {
			reason += "; " + d.Reason
		}
		d.Reason = reason
	}
	switch {
	case g.cancelled != nil:
		d.Conclusion = gate.Cancelled
	case g.unknown && d.Conclusion != gate.Failure:
		d.Conclusion = gate.Failure
		because(fmt.Sprintf("partial rerun cannot pass the gate: comment %q to regrade every suite", rerun))
	default:
		worst := d.Conclusion
		for _, sg := range g.carried {
			worst = worse(worst, sg.Conclusion)
		}
		if worst != d.Conclusion {
			d.Conclusion = worst
			because(fmt.Sprintf("%d suite(s) not regraded still %s", len(g.carried), worst))
		}
	}
	return d
}

// conclude adds what only the check run carries: the cancel in its title, the note before
// its summary and the gate state after it.
func (g *commitGate) conclude(check *reports.CheckOutput) {
	if g.cancelled != nil {
		check.Title = "Cancelled: " + check.Title
	}
	if g.note != "" {
		check.Summary = g.note + "\n\n" + check.Summary
	}
	check.Summary += g.block()
}

// block is the state block, or nothing for a cancelled run (whose suites are unfinished).
func (g *commitGate) block() string {
	if g.cancelled != nil {
		return ""
	}
	return g.state.block()
}

// worse is the more blocking of two conclusions.
func worse(a, b string) string {
	rank := func(c string) int {
		switch c {
		case gate.Success:
			return 0
		case gate.Neutral:
			return 1
		}
		return 2
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// rerunNote says what a partial rerun graded and what it took from the run before.
func rerunNote(p plan, g *commitGate, pv previous, rerun string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> **Partial rerun** of %s on this commit: %d suite(s) graded now.", code(p.only), len(g.state.Ran))
	switch {
	case g.unknown:
		why := "it has no earlier evalgate check run"
		switch {
		case pv.err != nil:
			why = "its earlier check run could not be read"
		case pv.found && pv.conclusion == "":
			why = "its earlier check run never completed"
		case pv.found:
			why = "its earlier check run (" + pv.conclusion + ") records no per-suite verdicts, or a conclusion the suites alone do not explain"
		}
		fmt.Fprintf(&b, " The gate's verdict for the other suites is unknown (%s), so this rerun cannot pass the gate: comment %s without a glob to regrade every suite.", why, code(rerun))
	case len(g.carried) > 0:
		b.WriteString(" Not regraded, carried forward from the previous run on this commit:")
		for _, path := range g.state.Carried {
			sg := g.carried[path]
			fmt.Fprintf(&b, "\n> - %s: %s (%s)", code(path), sg.Conclusion, sg.Verdict)
		}
		b.WriteString("\n>\n> The gate's conclusion covers them too.")
	default:
		b.WriteString(" No suite that blocked the previous run on this commit was left out.")
	}
	return b.String()
}

// cancelNote says that the run was cut short, why, and which tests finished. A test that
// ended in an error after the cancel (at) was interrupted by it, not finished.
func cancelNote(run *result.Run, cause error, at time.Time) string {
	var done, total int
	var finished []string
	for _, s := range run.Suites {
		for _, t := range s.Tests {
			total++
			if t == nil || t.Verdict == result.Skip {
				continue
			}
			end := t.StartedAt.Add(time.Duration(t.DurationMS+1) * time.Millisecond)
			if t.Verdict == result.Error && !at.IsZero() && !end.Before(at) {
				continue
			}
			done++
			if len(finished) < 20 {
				finished = append(finished, code(s.Path+" › "+t.Label())+" "+string(t.Verdict))
			}
		}
	}
	note := fmt.Sprintf("> **This run was cancelled** (%s) before it finished: %d of %d test(s) finished; the others were interrupted or never started. The check run is `cancelled`, and the results below are partial.", oneLine(cause.Error()), done, total)
	if len(finished) > 0 {
		note += "\n> Finished: " + strings.Join(finished, ", ")
		if done > len(finished) {
			note += fmt.Sprintf(", and %d more", done-len(finished))
		}
	}
	return note
}
