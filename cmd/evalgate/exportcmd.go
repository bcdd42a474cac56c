package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/potato"
	"github.com/evalgate/evalgate/internal/result"
)

func newExportCmd(e env, st *cliState) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export a run's results for other tools",
		Long: `Export a run's results for other tools. Formats:

  potato   Potato rubric_eval projects, so humans can rate what the judge rated`,
		Args: cobra.ArbitraryArgs,
		RunE: runE(st, func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown export format %q; formats: potato", args[0])
			}
			return usageErr("export needs a format: evalgate export potato RESULTS.json --out DIR")
		}),
	}
	cmd.AddCommand(newExportPotatoCmd(e, st))
	return cmd
}

// exportOptions are the flags of `evalgate export potato`.
type exportOptions struct {
	out     string
	root    string
	results string
}

func newExportPotatoCmd(e env, st *cliState) *cobra.Command {
	o := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "potato RESULTS.json --out DIR",
		Short: "Write a run's traces as Potato rubric_eval projects, for humans to rate",
		Long: `Write the traces of a run (the results.json that "evalgate run --out" writes) as Potato
annotation projects, so humans can rate the outputs the LLM judge rated, on the same criteria.

Each project directory is one Potato project, as Potato 2.8 (davidjurgens/potato ` + "`" + `f5ed5d4` + "`" + `)
loads and serves it: config.yaml (task_dir, output_annotation_dir and the other keys Potato's
validator requires; an instance_display showing the task, the final answer, the agent's session
as a coding_trace of turns with their tool calls, and the workspace diff; one rubric_eval scheme
per judge grader), data/traces.jsonl (one item per test), evalgate.json (how the schemes, criteria
and Potato's stored columns map back to the judge's criteria and scale, for "evalgate calibrate")
and an empty annotation_output/.

Each scheme rates on the judge's scale: a checklist has two columns, not met and met; a score
range eleven, 0–10, with the criterion's ranges in its description; a Likert scheme the suite's
scale and labels, its anchors in the descriptions, and the overall row (show_overall) when the
suite has an overall. Weights, required flags and minimum scores are shown in the descriptions:
rubric_eval has no keys for them (calibrate computes the humans' weighted score from the weights).
Tests with different judge criteria go to different projects (a suite's name, then -2, -3 …). The
suites are re-read from --root for what results.json does not keep (score-range texts, Likert
anchors); if a suite is gone, its projects are written without them.

Rate with "cd DIR/<project> && potato start config.yaml -p 8000", then compare with
"evalgate calibrate DIR/<project>/annotation_output".`,
		Example: `  evalgate run evals/ --out report/
  evalgate export potato report/results.json --out potato/
  (cd potato/greeter && potato start config.yaml -p 8000)`,
		Args: cobra.ExactArgs(1),
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			o.results = args[0]
			if o.out == "" {
				return usageErr("export potato needs --out DIR")
			}
			return exportPotato(cmd.Context(), e, o)
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&o.out, "out", "", "directory to write the Potato projects to")
	fs.StringVar(&o.root, "root", "", "repository root the results' suite paths are relative to (default: the git work tree of the current directory)")
	return cmd
}

func exportPotato(ctx context.Context, e env, o *exportOptions) error {
	run, err := readResultsArg(o.results)
	if err != nil {
		return err
	}
	root, err := absRoot(ctx, o.root, nil)
	if err != nil {
		return err
	}
	projects := potato.Export(run, potato.Specs(run, root, e.getenv, func(path string) {
		fmt.Fprintf(e.stderr, "evalgate: %s could not be re-read; its projects have no score-range texts or Likert anchors\n", path)
	}))
	if len(projects) == 0 {
		return usageErr("%s has no test graded by an LLM judge with criteria: nothing for humans to rate", o.results)
	}
	if err := potato.Write(o.out, projects); err != nil {
		return err
	}
	for _, p := range projects {
		fmt.Fprintf(e.stdout, "%s: %d traces, %d schemes\n", filepath.Join(o.out, p.Name, "config.yaml"), len(p.Items), len(p.Config.AnnotationSchemes))
	}
	return nil
}

// readResultsArg reads a results.json named on the command line.
func readResultsArg(path string) (*result.Run, error) {
	run, err := pipeline.ReadResults(path)
	if err != nil {
		return nil, usageErr("read results: %w", err)
	}
	return run, nil
}
