package gate

import (
	"fmt"
	"maps"
	"slices"

	"github.com/evalgate/evalgate/internal/result"
)

// A partial rerun ("/evalgate rerun <glob>") grades some suites of a commit, and its check run
// replaces the gate's previous one there. So that it does not forget the suites it did not
// grade, every completed check run records the gate's per-suite State, and the gate's second
// input, after the run itself, is the State the previous check run recorded (Prior): a
// partial rerun carries forward the verdicts of the suites it did not re-grade and concludes
// over all of them. Reading that check run is the driver's job; trusting it is decided here,
// from what the driver could authenticate (see ParseBlock).

// stateVersion is the version of State this gate writes and reads.
const stateVersion = 1

// State is what a completed check run says about the gate on its commit.
type State struct {
	Version int `json:"v"`
	// Blocking are the suites whose conclusion was not success, by path.
	Blocking map[string]SuiteState `json:"blocking"`
	// Ran are the suites this check run graded; Carried those it took from an earlier one.
	Ran     []string `json:"ran"`
	Carried []string `json:"carried,omitempty"`
	// Incomplete says the conclusion rests on more than the listed suites (a baseline
	// regression, a budget cut, a partial rerun that could not read the gate before it), so a
	// later partial rerun cannot vouch for the commit.
	Incomplete bool `json:"incomplete,omitempty"`
}

// SuiteState is one suite's part in the gate.
type SuiteState struct {
	Conclusion string         `json:"conclusion"`
	Verdict    result.Verdict `json:"verdict"`
}

// Prior is the gate before a partial rerun, as far as the driver could authenticate it.
type Prior struct {
	// State is the previous check run's state; nil when there is none the gate may use (none
	// found, unreadable, unauthenticated, never completed).
	State *State
	// Passed says the previous check run concluded success and records no state (it was
	// written before states were) and may be believed: then there is nothing to carry. The
	// driver sets it only when it authenticated the check run by other means.
	Passed bool
}

// Commit is the gate on a run's commit: the per-suite state of the run, and for a partial
// rerun what it carries from the gate before it.
type Commit struct {
	// State is what this run's check run records.
	State State
	// Carried are the suites not graded now whose verdicts come from the prior state.
	Carried map[string]SuiteState
	// Unknown says a partial rerun could not learn the gate before it, so it cannot pass.
	Unknown bool
	// Cancelled says the run was cut short: it concludes cancelled and records no state.
	Cancelled bool
	// worst is the most blocking per-suite conclusion of the suites graded now.
	worst string
}

// Record is the gate state of a finished run under p: each suite's conclusion, as Suite
// gives it. A cancelled run records nothing (its suites are unfinished).
func (p Policy) Record(run *result.Run, cancelled bool) *Commit {
	c := &Commit{Cancelled: cancelled, Carried: map[string]SuiteState{}, worst: Success,
		State: State{Version: stateVersion, Blocking: map[string]SuiteState{}, Ran: []string{}}}
	if cancelled || run == nil {
		return c
	}
	for _, s := range run.Suites {
		if s == nil {
			continue
		}
		c.State.Ran = append(c.State.Ran, s.Path)
		con := p.suite(run, s)
		c.worst = worse(c.worst, con)
		if con != Success {
			c.State.Blocking[s.Path] = SuiteState{Conclusion: con, Verdict: s.Summary.Verdict}
		}
	}
	return c
}

// Carry makes c a partial rerun's gate: the suites that blocked the prior state and were not
// graded now keep their verdicts. Without a complete prior state (or a believable stateless
// success) the gate before is unknown, and the rerun cannot pass.
func (c *Commit) Carry(prior Prior) {
	if c.Cancelled {
		return
	}
	switch s := prior.State; {
	case s != nil && !s.Incomplete:
		for _, path := range slices.Sorted(maps.Keys(s.Blocking)) {
			if !slices.Contains(c.State.Ran, path) {
				c.Carried[path] = s.Blocking[path]
				c.State.Blocking[path] = s.Blocking[path]
				c.State.Carried = append(c.State.Carried, path)
			}
		}
	case s == nil && prior.Passed:
		// A success from before gate states were recorded: nothing to carry.
	default:
		c.Unknown = true
		c.State.Incomplete = true
	}
}

// Decide is the gate's decision on the commit: the run's own decision (its tests, its
// regressions), then a cancel, an unknown gate before a partial rerun, or the verdicts carried
// forward from suites it did not regrade. rerun is the command that regrades every suite,
// for the reason. Drivers call it once, before anything is rendered, so that every renderer
// shows the same decision.
func (c *Commit) Decide(own Decision, rerun string) Decision {
	// The suites alone must explain the conclusion (no regression or budget verdict on top)
	// for a later partial rerun to build on this state.
	if worse(c.worst, own.Conclusion) != c.worst {
		c.State.Incomplete = true
	}
	d := own
	because := func(reason string) {
		if d.Reason != "" {
			reason += "; " + d.Reason
		}
		d.Reason = reason
	}
	switch {
	case c.Cancelled:
		d.Conclusion = Cancelled
	case c.Unknown && d.Conclusion != Failure:
		d.Conclusion = Failure
		because(fmt.Sprintf("partial rerun cannot pass the gate: comment %q to regrade every suite", rerun))
	default:
		worst := d.Conclusion
		for _, s := range c.Carried {
			worst = worse(worst, s.Conclusion)
		}
		if worst != d.Conclusion {
			d.Conclusion = worst
			because(fmt.Sprintf("%d suite(s) not regraded still %s", len(c.Carried), worst))
		}
	}
	return d
}

// worse is the more blocking of two conclusions: success, then neutral, then anything else.
func worse(a, b string) string {
	rank := func(c string) int {
		switch c {
		case Success:
			return 0
		case Neutral:
			return 1
		}
		return 2
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
