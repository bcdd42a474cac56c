package main

import (
	"github.com/evalgate/evalgate/internal/redact"

	"fmt"
	"os"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// report prints the run and writes the report files, all showing the gate's one decision.
func report(e env, o *runOptions, root string, run *result.Run, cmp *reports.Comparison, decision gate.Decision, scrub *redact.Redactor) error {
	var err error
	// One view of the run feeds the table and every report file.
	rep := reports.NewReport(run, cmp)
	// Credentials an agent echoed stay out of CI logs and report files here too.
	out := scrub.Writer(e.stdout)
	if o.format == "json" {
		err = reports.WriteResults(out, run)
	} else {
		width, isTerm := terminal(e)
		err = rep.Table(out, reports.TableOptions{Gate: decision, Width: width, Color: isTerm && e.getenv("NO_COLOR") == ""})
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("print results: %w", err)
	}
	if o.out == "" {
		return nil
	}
	opts := reports.FilesOptions{
		Comment: reports.CommentOptions{Gate: decision},
		Summary: reports.SummaryOptions{Gate: decision},
		Check:   reports.CheckOptions{Gate: decision, RepoRoot: root},
		JUnit:   reports.JUnitOptions{Gate: decision},
		Root:    root,
		Scrub:   scrub,
	}
	if err := rep.WriteAll(o.out, opts); err != nil {
		return fmt.Errorf("write reports to %s: %w", o.out, err)
	}
	return nil
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
