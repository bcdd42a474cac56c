package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/potato"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// calibrateOptions are the flags of `evalgate calibrate`.
type calibrateOptions struct {
	results string
	format  string
	th      calibrate.Thresholds
	paths   []string
}

func newCalibrateCmd(e env, st *cliState) *cobra.Command {
	o := &calibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate ANNOTATIONS... [--results RESULTS.json]",
		Short: "Measure how well the LLM judge agrees with human raters (Potato annotations)",
		Long: `Compare the judge's ratings in a results.json with human ratings of the same traces, made in
Potato on the projects "evalgate export potato" wrote. ANNOTATIONS are files or directories
(searched for *.json and *.jsonl) holding any of:

  Potato's user states     <project>/annotation_output/<user>/user_state.json, as Potato saves them
  Potato's export          python -m potato.export --config config.yaml --format jsonl --output export
                           (rows of instance_id, user_id, labels: {scheme: {criterion: "column"}})
  rubric rows              trace_id, annotator and rubric.criteria_ratings (plus overall and
                           weighted_score), the rubric_eval tutorial's format, on the judge's scale

Potato stores the chosen column ("1" … "n"), not a score: its ratings are mapped back to the
judge's criteria and scale by the evalgate.json the export wrote in the project directory (found in
the file's directory or above it). calibrate says on stderr, per file, how many ratings it read and
what it skipped and why (a scheme or criterion the export did not write, a column out of range, no
evalgate.json, a rating already read from another file: a user state and its export hold the same
ratings); the report repeats the totals.

Per criterion it reports: items rated by the judge and at least one human; Krippendorff's α
between the humans and between the judge and the humans' mean rating (interval and ordinal);
exact and within-one agreement of judge and human over every (item, human) pair; the judge's
mean bias (judge − human mean: positive means lenient); and a verdict:

  humans disagree     human–human α's interval lies below tentative: fix the anchors first
  judge trustworthy   judge–human α's interval lower bound ≥ reliable (default 0.8)
  judge tentative     judge–human α's interval lower bound ≥ tentative (default 0.667)
  judge disagrees     judge–human α's interval lies below tentative
  not enough data     fewer than 10 items, α undefined (no variation), or an interval
                      that spans tentative: rate more items

Each interval α has a 95% confidence interval: a percentile bootstrap over items (1000
resamples, seeded by the criterion, so the same ratings give the same interval), shown from
10 items on. The verdicts use the interval α. An undefined α is shown as n/a (null in JSON,
with the reason).

Without --results, calibrate reports the humans' agreement alone, per criterion (α among the
annotators with its interval; humans agree, humans tentative, humans disagree or not enough
data by the same rules): is the rubric clear enough to rate by before a judge is measured?`,
		Example: `  evalgate calibrate potato/greeter/annotation_output/ --results report/results.json
  evalgate calibrate potato/greeter/annotation_output/        # human–human agreement only
  evalgate calibrate ann1.jsonl ann2.jsonl --results report/results.json --format json
  evalgate calibrate potato/*/annotation_output --results report/results.json --format markdown >> "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.MinimumNArgs(1),
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			o.paths = args
			if err := o.check(); err != nil {
				return err
			}
			return calibrateCmd(e, o)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.results, "results", "", "results.json of the run the humans rated (without it: human–human agreement only)")
	f.StringVar(&o.format, "format", "table", "output: table, markdown or json")
	f.Float64Var(&o.th.Reliable, "reliable", calibrate.DefaultThresholds.Reliable, "α at or above which the judge is trustworthy")
	f.Float64Var(&o.th.Tentative, "tentative", calibrate.DefaultThresholds.Tentative, "α at or above which conclusions are tentative")
	return cmd
}

func (o *calibrateOptions) check() error {
	switch {
	case o.format != "table" && o.format != "markdown" && o.format != "json":
		return usageErr("--format must be table, markdown or json, not %q", o.format)
	// Written as the valid range negated, so NaN (which fails every comparison) is refused too.
	case !(o.th.Tentative >= -1 && o.th.Reliable <= 1 && o.th.Tentative <= o.th.Reliable):
		return usageErr("--tentative must not exceed --reliable, both at most 1")
	}
	return nil
}

func calibrateCmd(e env, o *calibrateOptions) error {
	var run *result.Run
	if o.results != "" {
		var err error
		if run, err = readResultsArg(o.results); err != nil {
			return err
		}
	}
	rep, err := potato.Calibrate(run, o.paths, o.th, func(src *calibrate.Source, mapPath string) { describeSource(e, src, mapPath) })
	if err != nil {
		return usageErr("%w", err)
	}
	switch o.format {
	case "json":
		return reports.WriteCalibrationJSON(e.stdout, rep)
	case "markdown":
		_, err := fmt.Fprint(e.stdout, reports.CalibrationMarkdown(rep))
		return err
	}
	return reports.CalibrationTable(e.stdout, rep)
}

// describeSource tells on stderr what one annotation file gave and what was skipped and why.
func describeSource(e env, s *calibrate.Source, mapPath string) {
	format := s.Format
	if format == "" {
		format = "no ratings"
	}
	via := ""
	if mapPath != "" && (s.Format == potato.FormatUserState || s.Format == potato.FormatExport) {
		via = ", mapped by " + mapPath
	}
	fmt.Fprintf(e.stderr, "evalgate: %s: %d ratings read (%s%s)\n", s.Path, s.Ratings, format, via)
	for _, k := range s.Skipped {
		fmt.Fprintf(e.stderr, "evalgate: %s: %d skipped: %s\n", s.Path, k.Count, k.Reason)
	}
}
