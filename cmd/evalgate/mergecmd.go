package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
)

// mergeOptions are the flags of `evalgate merge`.
type mergeOptions struct {
	reportFlags
	// sel, paths, trials and durations are the shards' own: the merge plans the split again
	// from them and refuses a shard whose plan differs.
	sel       selection
	paths     []string
	trials    int
	durations string
	dirs      []string
}

func newMergeCmd(e env, st *cliState) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge DIR... [flags]",
		Short: "Merge the partial results of `run --shard i/n` into one run, report it and gate on it",
		Long: `Merge the shards of a matrix run into one run, then print, write and gate on it exactly as
an unsharded ` + "`evalgate run`" + ` of the same tests would.

Each DIR is a shard's --out directory (holding shard.json and results.json), or a directory
whose subdirectories are (as actions/download-artifact leaves them). A shard's files were
written by a job that ran the agents under test, so the merge does not take its plan on its
word: it loads the suites the shards ran (--path, default the current directory, with the
same --test-id, --tag, --target, --trials and --shard-durations as the shards) and plans
the split itself. A shard whose plan, or whose results, differ from that plan is refused and
its tests are errors naming why. Every shard must have graded the same commit; a shard
present twice is refused. A shard that is missing or crashed (no results) turns each of its
tests into an error result naming it, so the gate fails: a test that did not run is never a
pass.`,
		Example: `  evalgate merge shards/                            # shards of evalgate run --shard i/4 (no PATH)
  evalgate merge s1/ s2/ s3/ s4/ --path evals/ --tag smoke --out report/ --fail-on borderline`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			o.dirs = args
			if err := o.check(); err != nil {
				return err
			}
			if err := o.sel.check(); err != nil {
				return err
			}
			if o.trials < 0 || o.trials > suite.MaxTrials {
				return usageErr("--trials must be between 0 and %d", suite.MaxTrials)
			}
			return mergeCmd(cmd.Context(), e, o)
		}),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.register(fs)
	fs.StringArrayVar(&o.paths, "path", nil, "a PATH the shards were run with, to plan the split again (repeatable; default: the current directory, as for run)")
	o.sel.register(fs)
	fs.IntVar(&o.trials, "trials", 0, "the shards' --trials (it weighs the split)")
	fs.StringVar(&o.durations, "shard-durations", "", "the shards' --shard-durations file (it balances the split)")
	return cmd
}

func mergeCmd(ctx context.Context, e env, o *mergeOptions) error {
	// The suites are loaded as run loads them, without running or building anything.
	root, l, suites, err := (&runOptions{sel: o.sel, paths: o.paths}).load(ctx, e)
	if err != nil {
		return err
	}
	key := e.getenv(shard.KeyEnv)
	if err := shard.CheckKey(key); err != nil {
		return usageErr("%w", err)
	}
	m, err := pipeline.Merge(o.dirs, shard.MergeOptions{Replan: pipeline.Replan(suites, l.LoadErrors, o.durations, o.sel.target != "", o.trials), Key: key}, o.out)
	if err != nil {
		return usageErr("merge: %w", err)
	}
	fmt.Fprintln(e.stderr, mergeLine(m.Report))
	scrub := e.scrubber()
	scrub.Add(pipeline.Credentials(e.environ, e.getenv)...)
	return o.report(e, root, m.Run, scrub)
}

// mergeLine says which shards were found where, and which are missing.
func mergeLine(r *shard.Report) string {
	var found []string
	for _, f := range r.Shards {
		found = append(found, fmt.Sprintf("%s from %s", f.Shard, f.Dir))
	}
	line := "evalgate: merged " + strings.Join(found, ", ")
	if len(found) == 0 {
		line = "evalgate: merged no shard"
	}
	if len(r.Missing) > 0 {
		line += fmt.Sprintf("; MISSING shard(s) %v: their tests are errors", r.Missing)
	}
	if len(r.Empty) > 0 {
		line += "; no shard found in " + strings.Join(r.Empty, ", ")
	}
	for _, ref := range r.Refused {
		line += fmt.Sprintf("; REFUSED shard %s from %s: %s; its tests are errors", ref.Shard, ref.Dir, ref.Reason)
	}
	return line
}
