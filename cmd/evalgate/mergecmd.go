package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/shard"
)

// mergeOptions are the flags of `evalgate merge`.
type mergeOptions struct {
	reportFlags
	root string
	dirs []string
}

func newMergeCmd(e env, st *cliState) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge DIR... [flags]",
		Short: "Merge the partial results of `run --shard i/n` into one run, report it and gate on it",
		Long: `Merge the shards of a matrix run into one run, then print, write and gate on it exactly as
an unsharded ` + "`evalgate run`" + ` of the same tests would.

Each DIR is a shard's --out directory (holding shard.json and results.json), or a directory
whose subdirectories are (as actions/download-artifact leaves them). Every shard must have
planned the same tests on the same commit; a shard present twice is refused. A shard that is
missing or crashed (no results) turns each of its tests into an error result naming it, so the
gate fails: a test that did not run is never a pass.`,
		Example: `  evalgate merge shards/                            # shards/shard-1 … shards/shard-4
  evalgate merge s1/ s2/ s3/ s4/ --out report/ --fail-on borderline`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			o.dirs = args
			if err := o.reportFlags.check(); err != nil {
				return err
			}
			return mergeCmd(cmd.Context(), e, o)
		}),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	o.reportFlags.register(fs)
	fs.StringVar(&o.root, "root", "", "repository root, for annotation paths (default: the git work tree of the current directory)")
	return cmd
}

func mergeCmd(ctx context.Context, e env, o *mergeOptions) error {
	root, err := absRoot(ctx, o.root, nil)
	if err != nil {
		return err
	}
	m, err := pipeline.Merge(o.dirs, shard.MergeOptions{}, o.out)
	if err != nil {
		return usageErr("merge: %w", err)
	}
	fmt.Fprintln(e.stderr, mergeLine(m.Report))
	scrub := e.scrubber()
	scrub.Add(credentials(e)...)
	return o.report(e, root, m.Run, scrub)
}

// mergeLine says which shards were found where, and which are missing.
func mergeLine(r *shard.Report) string {
	var found []string
	for _, f := range r.Shards {
		found = append(found, fmt.Sprintf("%s from %s", f.Shard, f.Dir))
	}
	line := "evalgate: merged " + strings.Join(found, ", ")
	if len(r.Missing) > 0 {
		line += fmt.Sprintf("; MISSING shard(s) %v: their tests are errors", r.Missing)
	}
	if len(r.Empty) > 0 {
		line += "; no shard found in " + strings.Join(r.Empty, ", ")
	}
	return line
}
