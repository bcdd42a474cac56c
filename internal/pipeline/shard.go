package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/reports"
)

// Sharding is a run's place in an Actions matrix: `--shard i/n` or the action's shard input.
type Sharding struct {
	Spec shard.Spec
	// Durations is a results.json of an earlier run whose test durations balance the shards;
	// "" balances by test count.
	Durations string
	// Salt is a digest of the options that change results (target, judge, trials, thresholds):
	// shards run with different options do not merge.
	Salt string
}

// Label is the shard's "i/n", "" for an unsharded run (nil).
func (s *Sharding) Label() string {
	if s == nil {
		return ""
	}
	return s.Spec.String()
}

// Split plans the split of the selected suites across every shard and returns this shard's
// suites (copies: the loaded suites are not changed). Every shard computes the same plan from
// the same selection, so no test runs twice or never.
func (s *Sharding) Split(suites []*suite.Suite, loadErrors []*result.SuiteResult, singleTarget bool, trials int) (*shard.Plan, []*suite.Suite, error) {
	o := shard.Options{SingleTarget: singleTarget, Trials: trials, Salt: s.Salt}
	if s.Durations != "" {
		f, err := os.Open(s.Durations)
		if err != nil {
			return nil, nil, fmt.Errorf("shard durations: %w", err)
		}
		defer f.Close()
		if o.Durations, err = shard.ReadDurations(f); err != nil {
			return nil, nil, fmt.Errorf("shard durations %s: %w", s.Durations, err)
		}
	}
	plan := shard.NewPlan(suites, loadErrors, s.Spec.Count, o)
	return plan, plan.Select(suites, s.Spec.Index), nil
}

// Part narrows job, a job of the whole selection, to this shard's part (Split) and returns the
// plan. Every shard still checks the whole selection's configuration, so a mistake fails every
// shard alike, where it is written, rather than only the one whose tests meet it.
func (s *Sharding) Part(job *Job, singleTarget bool, trials int) (*shard.Plan, error) {
	plan, mine, err := s.Split(job.Suites, job.LoadErrors, singleTarget, trials)
	if err != nil {
		return nil, err
	}
	job.Check, job.Suites, job.Shard = job.Suites, mine, s.Label()
	return plan, nil
}

// ClearPartial removes an earlier shard's manifest and results from dir before this shard
// runs: a shard that then fails writes nothing, and the merge must count it missing rather
// than take the earlier run's results for this one's.
func ClearPartial(dir string) error {
	for _, f := range []string{shard.ManifestFile, reports.FileResults} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("clear the shard output in %s: %w", dir, err)
		}
	}
	return nil
}

// WritePartial writes a shard's partial result into dir: results.json with the tests it ran,
// then shard.json, the manifest `evalgate merge` checks, signed with key when there is one
// (shard.KeyEnv). The manifest is written last, so a shard that died while writing is
// missing, never half present.
func WritePartial(dir string, run *result.Run, m shard.Manifest, opts reports.FilesOptions, key string) error {
	if err := reports.WriteResultsFile(dir, run, opts); err != nil {
		return fmt.Errorf("write shard %s results: %w", m.Shard, err)
	}
	if err := shard.Sign(&m, dir, key); err != nil {
		return err
	}
	if err := shard.WriteManifest(dir, m); err != nil {
		return fmt.Errorf("write shard %s manifest: %w", m.Shard, err)
	}
	return nil
}

// Replan is the shard.MergeOptions.Replan of a merge: it plans the split again from the
// suites the shards ran, as each shard planned it (Split), so a shard whose artifact says
// otherwise is refused whatever its job wrote.
func Replan(suites []*suite.Suite, loadErrors []*result.SuiteResult, durations string, singleTarget bool, trials int) func(count int, salt string) (*shard.Plan, error) {
	return func(count int, salt string) (*shard.Plan, error) {
		sh := &Sharding{Spec: shard.Spec{Index: 1, Count: count}, Durations: durations, Salt: salt}
		plan, _, err := sh.Split(suites, loadErrors, singleTarget, trials)
		return plan, err
	}
}
