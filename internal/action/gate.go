package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/reports"
)

// A partial rerun ("/evalgate rerun <glob>") carries forward the verdicts of the suites it
// did not re-grade from the gate's previous check run on the commit; internal/gate decides
// with that state (gate.Prior, gate.Commit). What is left here is GitHub's part: finding the
// previous check run and deciding how far it can be believed, and hooking the gate's note and
// state block into the check run.

// previous is the gate's previous check run on a commit, as a partial rerun reads it.
type previous struct {
	found      bool   // a check run of that name, by this job's app, exists on the commit
	conclusion string // empty while it is not completed
	prior      gate.Prior
	// refused says why the previous gate is not believed (another app's check run, a state
	// unsigned or badly signed, a block cut short); "" when it is, or there is none.
	refused string
	// trust says how its state was authenticated, for the note and the log.
	trust string
	err   error
}

// openGate opens the run's check run and, for a partial rerun, then reads the gate before it:
// the check run just opened names the GitHub App this job posts as, the only app whose
// earlier check runs it believes.
func (d *deps) openGate(ctx context.Context, in inputs, p plan) *publisher {
	pub := d.publisher(ctx, in, p)
	if p.only != "" {
		pub.p.prev = d.previousGate(ctx, in, p.sha, pub.checkID)
	}
	return pub
}

// previousGate reads the newest check run named like the gate on sha that this job's app
// (the app of its own check run, own) created before own, and authenticates its state: by
// that app alone, or with a key (d.ShardKey) also by the state's signature for sha.
func (d *deps) previousGate(ctx context.Context, in inputs, sha string, own int64) previous {
	// filter=all: own is now the latest of its app, and other apps' runs are named in the log.
	runs, err := d.Source.ListCheckRuns(ctx, sha, github.ListCheckRunsOptions{CheckName: in.CheckName})
	if err != nil {
		d.logf("evalgate: cannot read the previous %s check run on %s: %v", in.CheckName, sha, err)
		return previous{err: err}
	}
	key := d.ShardKey
	var pv previous
	i := slices.IndexFunc(runs, func(r github.CheckRun) bool { return own != 0 && r.ID == own })
	if i < 0 && key == "" {
		pv.refused = fmt.Sprintf("this job has no check run of its own to tell the GitHub App it posts as, and no %s is set to check a signature", shard.KeyEnv)
		d.logf("evalgate: cannot authenticate the previous %s check run on %s: %s", in.CheckName, sha, pv.refused)
		return pv
	}
	var earlier []github.CheckRun
	others := map[string]int{}
	for _, r := range runs {
		// The API lists the name on that commit; a run opened after own is a concurrent one.
		if r.Name != in.CheckName || r.HeadSHA != sha || r.ID == own || (own != 0 && r.ID > own) {
			continue
		}
		if i >= 0 && r.AppID != runs[i].AppID {
			others[cmp.Or(r.AppSlug, strconv.FormatInt(r.AppID, 10))]++
			continue
		}
		earlier = append(earlier, r)
	}
	app := "an unknown app"
	if i >= 0 {
		app = "the GitHub App " + cmp.Or(runs[i].AppSlug, strconv.FormatInt(runs[i].AppID, 10))
	}
	for _, slug := range slices.Sorted(maps.Keys(others)) {
		d.logf("evalgate: ignoring %d %s check run(s) on %s by the app %s: only %s, which posts this job's, is believed", others[slug], in.CheckName, sha, slug, app)
	}
	if len(earlier) == 0 {
		if len(others) > 0 {
			pv.refused = fmt.Sprintf("its earlier %s check runs were posted by another GitHub App, not %s", in.CheckName, app)
		}
		d.logf("evalgate: no earlier %s check run by %s on %s", in.CheckName, app, sha)
		return pv
	}
	latest := slices.MaxFunc(earlier, func(a, b github.CheckRun) int { return cmp.Compare(a.ID, b.ID) })
	pv.found = true
	if latest.Status == "completed" {
		pv.conclusion = latest.Conclusion
	}
	state := pv.authenticate(latest.Summary, sha, latest.ID, key, app)
	d.logf("evalgate: previous %s check run %d on %s by %s: %s %s, gate state recorded: %v", in.CheckName, latest.ID, sha, app, latest.Status, latest.Conclusion, state != nil)
	switch {
	case pv.refused != "":
		d.logf("evalgate: not believing the gate state of check run %d: %s", latest.ID, pv.refused)
	case pv.trust != "":
		d.logf("evalgate: check run %d is authenticated %s", latest.ID, pv.trust)
	}
	return pv
}

// authenticate reads the state block of the previous check run's summary, posted on sha by
// app, and sets what the gate may take from it (prior) and why (trust), or why not (refused).
// It returns the state it accepted (nil: none).
func (pv *previous) authenticate(summary, sha string, checkID int64, key, app string) *gate.State {
	state, err := gate.ParseBlock(summary, sha, checkID, key)
	switch {
	case err == nil:
		pv.prior.State = state
		if key != "" {
			pv.trust = fmt.Sprintf("by its state's signature under %s, which checks for this commit (it was posted by %s)", shard.KeyEnv, app)
		} else {
			pv.trust = fmt.Sprintf("only by who posted it, %s, which posts this run too: its state is not signed (set %s to sign and check it)", app, shard.KeyEnv)
		}
	case errors.Is(err, gate.ErrNoState) && key == "":
		// A success from before gate states were recorded, by this job's app.
		pv.prior.Passed = pv.conclusion == gate.Success
		pv.trust = fmt.Sprintf("only by who posted it, %s, which posts this run too: it records no state", app)
	case errors.Is(err, gate.ErrNoState):
		if pv.conclusion == gate.Success {
			pv.refused = fmt.Sprintf("it is a success without a gate state, so it is not signed, and %s is set", shard.KeyEnv)
		}
	case errors.Is(err, gate.ErrUnsigned):
		pv.refused = fmt.Sprintf("%v, and %s is set", err, shard.KeyEnv)
	default:
		pv.refused = err.Error()
	}
	return state
}

// commitGate is a run's conclusion as the merge gate sees it on its commit (gate.Commit), with
// what only the action renders: the note and where the state block is signed for.
type commitGate struct {
	*gate.Commit
	sha, key string
	checkID  int64 // the check run the state block goes in: its signature names it
	// cancelled is the interruption that cut the run short; such a check records no state.
	cancelled error
	note      string // Markdown for the comment, the summary and the check run
}

// newGate computes the per-suite state of a finished run under policy and, for a partial
// rerun, carries forward what the previous check run recorded; key signs the state block.
func newGate(run *result.Run, policy gate.Policy, p plan, rerun, key string, checkID int64, cancelled error, cancelledAt time.Time) *commitGate {
	g := &commitGate{Commit: policy.Record(run, cancelled != nil), sha: p.sha, key: key, checkID: checkID, cancelled: cancelled}
	if cancelled != nil {
		g.note = cancelNote(run, cancelled, cancelledAt)
		return g
	}
	if p.only == "" {
		return g
	}
	g.Carry(p.prev.prior)
	g.note = rerunNote(p, g, p.prev, rerun)
	return g
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
func (g *commitGate) block() string { return g.Block(g.sha, g.checkID, g.key) }

// emptyState is the state block of a commit on which no suite ran: nothing blocks.
func emptyState(sha string, checkID int64, key string) string {
	return gate.Policy{}.Record(nil, false).Block(sha, checkID, key)
}

// rerunNote says what a partial rerun graded and what it took from the run before.
func rerunNote(p plan, g *commitGate, pv previous, rerun string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "> **Partial rerun** of %s on this commit: %d suite(s) graded now.", code(p.only), len(g.State.Ran))
	switch {
	case g.Unknown:
		why := "it has no earlier evalgate check run"
		switch {
		case pv.refused != "":
			why = "its earlier check run is not believed: " + pv.refused
		case pv.err != nil:
			why = "its earlier check run could not be read"
		case pv.found && pv.conclusion == "":
			why = "its earlier check run never completed"
		case pv.found:
			why = "its earlier check run (" + pv.conclusion + ") records no per-suite verdicts, or a conclusion the suites alone do not explain"
		}
		fmt.Fprintf(&b, " The gate's verdict for the other suites is unknown (%s), so this rerun cannot pass the gate: comment %s without a glob to regrade every suite.", why, code(rerun))
	case len(g.Carried) > 0:
		b.WriteString(" Not regraded, carried forward from the previous run on this commit:")
		for _, path := range g.State.Carried {
			sg := g.Carried[path]
			fmt.Fprintf(&b, "\n> - %s: %s (%s)", code(path), sg.Conclusion, sg.Verdict)
		}
		b.WriteString("\n>\n> The gate's conclusion covers them too.")
	default:
		b.WriteString(" No suite that blocked the previous run on this commit was left out.")
	}
	if !g.Unknown && pv.trust != "" {
		fmt.Fprintf(&b, "\n>\n> The previous check run is authenticated %s.", pv.trust)
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
