package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/reports"
)

// A large selection runs across an Actions matrix: each matrix job runs with `shard: i/n`,
// writes a partial result (results.json and shard.json) to report_dir and posts nothing; a job
// that needs them all runs with `merge:` and publishes the one comment, check run and summary
// an unsharded run would. Both ends take the same path through plan (trust and checkout), so a
// shard never runs what an unsharded run would refuse.

// salt digests the inputs that change results: shards run with different ones do not merge.
func (in inputs) salt() string {
	return fmt.Sprintf("target=%q judge=%q targets=%q trials=%d judge_samples=%d budget=%g", in.Target, in.Judge, in.Targets, in.Trials, in.JudgeSamples, in.BudgetUSD)
}

// runShard runs this job's shard of the picked suites and writes its partial result. Even a
// shard with no test writes one: the merge must see every shard to trust the whole.
func (d *deps) runShard(ctx context.Context, in inputs, p plan, picked []*suite.Suite, loadErrs []*result.SuiteResult, why map[string]string) error {
	sh := &pipeline.Sharding{Spec: *in.Shard, Durations: d.inRoot(in.ShardDurations), Salt: in.salt()}
	job := Job{Suites: picked, LoadErrors: loadErrs, Context: d.context(p, ""), Why: why}
	split, err := sh.Part(&job, in.Target != "", in.Trials)
	if err != nil {
		return d.shardFailed(ctx, in, sh.Spec, "split the suites", err, nil)
	}
	mine := job.Suites
	d.logf("evalgate: shard %s: %d of %d suite(s) have tests in this shard (plan %s, balanced by %s)", sh.Spec, len(mine), len(picked), split.ShortFingerprint(), split.Balance)
	run, err := d.execute(ctx, p.trust, job)
	if run == nil || err != nil {
		// A shard cut short writes no manifest: the merge reports its tests as errors rather
		// than trust the ones it skipped.
		if err == nil {
			err = errors.New("the run ended without a result")
		}
		return d.shardFailed(ctx, in, sh.Spec, "run its tests", err, mine)
	}
	m := shard.Manifest{Shard: sh.Spec, SHA: p.sha, Plan: split}
	if err := pipeline.WritePartial(d.reportDir(in), run, m, reports.FilesOptions{Root: d.Root, Scrub: d.Scrub}, d.ShardKey); err != nil {
		return d.shardFailed(ctx, in, sh.Spec, "write its partial result", err, nil)
	}
	// The table's gate line is this shard's tests alone under fail_on: the merge decides the gate.
	d.logTable(reports.NewReport(run, nil), gate.Policy{FailOn: in.FailOn}.Decide(run, 0))
	d.summary(fmt.Sprintf("## evalgate: shard %s\n\n%d test(s) of this shard ran; the partial result is in %s. The gate is decided by the job that merges every shard.\n",
		sh.Spec, run.Summary.Total, code(in.ReportDir)))
	d.finish(in, run, "shard", "", 0)
	return nil
}

// shardFailed reports a shard that wrote no partial result: a shard posts nothing, so the log,
// the step summary and the outputs say what failed; the merge job reports its tests as errors.
func (d *deps) shardFailed(ctx context.Context, in inputs, spec shard.Spec, stage string, err error, notRun []*suite.Suite) error {
	d.logErr(fmt.Sprintf("evalgate: shard %s could not %s", spec, stage), err)
	d.logf("evalgate: shard %s wrote no partial result, so the merge reports its tests as errors", spec)
	var b strings.Builder
	fmt.Fprintf(&b, "## ❌ evalgate: shard %s could not %s\n\n%s\n\n", spec, stage, fence(safetext.Truncate(err.Error(), maxFailureText)))
	if len(notRun) > 0 {
		fmt.Fprintf(&b, "This shard's tests in %d suite(s) have no result. ", len(notRun))
	}
	b.WriteString("No partial result was written: the job that merges the shards reports this shard's tests as errors.\n")
	d.summary(b.String())
	verdict, code := "error", errConfig
	if ctx.Err() != nil {
		verdict, code = "cancelled", errCancelled
	}
	d.finish(in, nil, verdict, "", 0)
	return code
}

// runMerged publishes the shards in in.Merge as one run, as if it had run here.
func (d *deps) runMerged(ctx context.Context, in inputs, p plan) error {
	dir := d.inRoot(in.Merge)
	// The merge plans the split itself, from its own checkout and event, as each shard did:
	// a shard whose artifact says otherwise is refused, whatever its job wrote.
	suites, loadErrs, err := d.Runner.Load(in.Suites)
	if err != nil {
		return d.fail(ctx, in, p, nil, failure{stage: "load the eval files", err: err})
	}
	picked, _ := d.pick(ctx, in, p, suites)
	if ctx.Err() != nil {
		return d.fail(ctx, in, p, nil, failure{stage: "select the suites to run", err: ctx.Err(), cancelled: interruption(ctx)})
	}
	replan := pipeline.Replan(picked, loadErrs, d.inRoot(in.ShardDurations), in.Target != "", in.Trials)
	// The check run opens once the shards are known to merge: shards that disagree get a
	// check run that says so, below.
	m, err := pipeline.Merge([]string{dir}, shard.MergeOptions{SHA: p.sha, Replan: replan, Key: d.ShardKey}, d.reportDir(in))
	if err != nil {
		// The gate cannot be decided from shards that disagree: it fails, and says why.
		return d.fail(ctx, in, p, nil, failure{stage: "merge the shards", err: err,
			notGraded: "the shards ran, but their results cannot be combined into one run, so the gate was not decided and no result was reported."})
	}
	for _, f := range m.Report.Shards {
		d.logf("evalgate: shard %s from %s", f.Shard, f.Dir)
	}
	for _, dir := range m.Report.Empty {
		d.logf("evalgate: no shard found in %s", dir)
	}
	if len(m.Report.Missing) > 0 {
		d.logf("evalgate: MISSING shard(s) %v: their tests are reported as errors", m.Report.Missing)
	}
	for _, r := range m.Report.Refused {
		d.logf("evalgate: REFUSED shard %s from %s: %s; its tests are reported as errors", r.Shard, r.Dir, r.Reason)
	}
	run := m.Run
	if len(run.Suites) == 0 {
		return d.nothingRan(ctx, in, p, nil)
	}
	pub := d.openGate(ctx, in, p)
	// The check run opens only once the shards merged into a run with tests, so where the run
	// is published is known only now: the published run is a copy labelled with it (the merged
	// run itself is not edited).
	labelled := *run
	labelled.Context = d.context(p, pub.checkURL)
	err = pub.publish(ctx, &labelled, nil, time.Time{})
	d.react(ctx, p, reaction(err))
	return err
}

// context says where a run happens: the repository, the graded commit, the pull request, the
// workflow run and the check run (once opened).
func (d *deps) context(p plan, checkURL string) *result.Context {
	ev := d.Event
	return &result.Context{Repository: ev.Owner + "/" + ev.Repo, SHA: p.sha, PR: p.pr, Event: ev.Name, RunURL: ev.RunURL(), CheckURL: checkURL}
}

// inRoot resolves a path input against the checked-out repository.
func (d *deps) inRoot(path string) string {
	if path == "" || filepath.IsAbs(path) || d.Root == "" {
		return path
	}
	return filepath.Join(d.Root, path)
}

// logTable writes the table to the job log between stop-commands markers: it carries judge
// reasoning and agent text, which must not issue workflow commands (::add-mask::, ::error::).
func (d *deps) logTable(rep *reports.Report, decision gate.Decision) {
	stopped(d.Log, func(w io.Writer) {
		sw := d.Scrub.Writer(w)
		if err := rep.Table(sw, reports.TableOptions{Gate: decision}); err != nil {
			fmt.Fprintf(sw, "evalgate: table: %v\n", err)
		}
		_ = sw.Close()
	})
}

// reaction is the rerun command's reaction to how the run ended.
func reaction(err error) string {
	if err == nil {
		return "rocket"
	}
	return "confused"
}
