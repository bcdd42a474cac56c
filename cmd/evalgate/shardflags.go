package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/reports"
)

// shardFlags are run's --shard and --shard-durations.
type shardFlags struct {
	spec, durations string
}

func (f *shardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.spec, "shard", "", "run only shard `I/N` (e.g. 2/4) and write a partial result to --out for evalgate merge")
	fs.StringVar(&f.durations, "shard-durations", "", "with --shard: results.json of an earlier run, to balance the shards by test duration")
}

// sharding is the parsed --shard, nil without one.
func (f *shardFlags) sharding(salt string) (*pipeline.Sharding, error) {
	if f.spec == "" {
		if f.durations != "" {
			return nil, usageErr("--shard-durations needs --shard")
		}
		return nil, nil
	}
	spec, err := shard.ParseSpec(f.spec)
	if err != nil {
		return nil, usageErr("--shard: %w", err)
	}
	return &pipeline.Sharding{Spec: spec, Durations: f.durations, Salt: salt}, nil
}

// salt digests the run options that change results, so shards run with different options
// refuse to merge.
func (o *runOptions) salt() string {
	return fmt.Sprintf("target=%q judge=%q targets=%q trials=%d judge_samples=%d threshold=%g borderline=%g budget=%g",
		o.sel.target, o.sel.judge, o.sel.targets, o.llm.trials, o.llm.judgeSamples, o.threshold, o.borderline, o.llm.budgetUSD)
}

// finishShard writes a shard's partial result and prints its table. A shard decides no gate:
// it exits 0 once its result is written, and `evalgate merge` gates on all of them. A shard
// cut short (interrupted, or stopped by an unreachable endpoint) writes no manifest, so the
// merge reports its tests as errors rather than trust what it skipped.
func finishShard(ctx context.Context, e env, o *runOptions, root string, run *result.Run, runErr error, m shard.Manifest, scrub *redact.Redactor) error {
	if runErr != nil {
		fmt.Fprintf(e.stderr, "evalgate: shard %s did not finish (%v): no partial result written, so evalgate merge reports its tests as errors\n", m.Shard, runErr)
		return runErr
	}
	// Outside a git work tree the commit is unknown: every shard then records "", and they
	// still merge with each other.
	m.SHA, _ = pipeline.HeadCommit(ctx, root)
	// The table's gate line is this shard's tests alone under fail_on (a shard has no baseline).
	c := pipeline.Conclude(run, nil, o.policy())
	if err := o.print(e, c.Report, run, c.Decision, scrub); err != nil {
		return err
	}
	if err := pipeline.WritePartial(o.out, run, m, reports.FilesOptions{Root: root, Scrub: scrub}, e.getenv(shard.KeyEnv)); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "evalgate: shard %s: partial result of %s in %s; the gate is decided by evalgate merge\n", m.Shard, count(run.Summary.Total, "test"), o.out)
	printKept(e, run)
	return nil
}
