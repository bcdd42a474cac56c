package main

import (
	"fmt"
	"os"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// report prints the run and writes the report files.
func report(e env, o *runOptions, root string, run *result.Run, failOn reports.FailOn) (*reports.Comparison, error) {
	cmp, err := baseline(o.baseline, run)
	if err != nil {
		return nil, err
	}
	if o.format == "json" {
		err = reports.WriteResults(e.stdout, run)
	} else {
		width, isTerm := terminal(e)
		err = reports.Table(e.stdout, run, reports.TableOptions{FailOn: failOn, Baseline: cmp, Width: width,
			Color: isTerm && e.getenv("NO_COLOR") == ""})
	}
	if err != nil {
		return nil, fmt.Errorf("print results: %w", err)
	}
	if o.out == "" {
		return cmp, nil
	}
	opts := reports.FilesOptions{
		Comment: reports.CommentOptions{FailOn: failOn, Baseline: cmp},
		Summary: reports.SummaryOptions{FailOn: failOn, Baseline: cmp},
		Check:   reports.CheckOptions{FailOn: failOn, Baseline: cmp, RepoRoot: root},
		JUnit:   reports.JUnitOptions{FailOn: failOn},
	}
	if err := reports.WriteAll(o.out, run, opts); err != nil {
		return nil, fmt.Errorf("write reports to %s: %w", o.out, err)
	}
	return cmp, nil
}

// baseline reads a base run's results.json and compares the run with it ("" = no comparison).
func baseline(path string, run *result.Run) (*reports.Comparison, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("--baseline: %w", err)
	}
	defer f.Close()
	base, err := reports.ReadResults(f)
	if err != nil {
		return nil, usageErr("--baseline %s: %w", path, err)
	}
	return reports.Compare(base, run, reports.DefaultNoise), nil
}
