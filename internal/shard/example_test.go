package shard_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
)

// A run of two shards where the second job never reported: the merge still accounts for
// every test, and the missing shard's tests are errors.
func Example() {
	selection := []*suite.Suite{{Name: "qa", Path: "evals/qa.yaml", Tests: []*suite.Test{{ID: "a"}, {ID: "b"}, {ID: "c"}}}}
	root, _ := os.MkdirTemp("", "shards")
	defer os.RemoveAll(root)

	// Each matrix job: plan (every job gets the same plan), run its part, write the manifest.
	spec, _ := shard.ParseSpec("1/2")
	plan := shard.NewPlan(selection, nil, spec.Count, shard.Options{Salt: "flags digest"})
	mine := plan.Select(selection, spec.Index)
	dir := filepath.Join(root, "evalgate-shard-1")
	_ = os.MkdirAll(dir, 0o755)
	run := &result.Run{SchemaVersion: result.SchemaVersion, Shard: spec.String(), Suites: []*result.SuiteResult{{Name: "qa", Path: "evals/qa.yaml"}}}
	for _, t := range mine[0].Tests { // the engine's job, faked
		run.Suites[0].Tests = append(run.Suites[0].Tests, &result.TestResult{Suite: "qa", ID: t.ID, Score: 1, Verdict: result.Pass})
	}
	rubric.SummarizeRun(run)
	writeResults(dir, run)
	_ = shard.WriteManifest(dir, shard.Manifest{Shard: spec, SHA: "abc123", Plan: plan})

	// The merge job, after downloading the artifacts into root.
	merged, rep, err := shard.Merge([]string{root}, shard.MergeOptions{SHA: "abc123"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("missing shards:", rep.Missing)
	for _, tr := range merged.Suites[0].Tests {
		line := fmt.Sprint(tr.ID, " ", tr.Verdict)
		if tr.Error != "" {
			line += ": " + tr.Error
		}
		fmt.Println(line)
	}
	fmt.Println("run:", merged.Summary.Verdict)
	// Output:
	// missing shards: [2]
	// a pass
	// b error: shard 2/2 reported no results (its job is missing or crashed); this test was not run
	// c pass
	// run: error
}

func writeResults(dir string, run *result.Run) {
	f, _ := os.Create(filepath.Join(dir, shard.ResultsFile))
	defer f.Close()
	_ = json.NewEncoder(f).Encode(run)
}
