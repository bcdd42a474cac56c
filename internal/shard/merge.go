package shard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
)

// MergeOptions say what the merge checks.
type MergeOptions struct {
	// SHA is the commit every shard must have graded; "" = don't check against one.
	SHA string
	// Replan, when set, is the merge's own plan of the selection for count shards, salt
	// being the shards' digest of their options (Plan.Salt). A shard must carry exactly that
	// plan, and its results must report only tests it gives that shard; a shard that does
	// not is refused (Report.Refused) and its tests are errors. Unset, the shards' own plan
	// is taken once they agree with each other.
	Replan func(count int, salt string) (*Plan, error)
	// Key, when set (the workflow's KeyEnv), must have signed each shard (Sign): a shard
	// unsigned or signed otherwise is refused.
	Key string
}

// Merge combines shard directories (each holding shard.json and results.json, or
// subdirectories that do) into the run an unsharded run of the plan's tests would have
// produced. It returns an error when the shards do not belong together or a file cannot be
// read; a shard that is missing or wrote no results is not an error: its tests are error
// results naming it, so the merged run never passes.
func Merge(dirs []string, o MergeOptions) (*result.Run, *Report, error) {
	rep := &Report{}
	found, err := discover(dirs, rep)
	if err != nil {
		return nil, rep, fmt.Errorf("merging shards: %w", err)
	}
	if len(found) == 0 {
		return nil, rep, fmt.Errorf("merging shards: no %s in %s or their subdirectories", ManifestFile, strings.Join(dirs, ", "))
	}
	if o.Key != "" {
		if found = signed(found, o.Key, rep); len(found) == 0 {
			return nil, rep, fmt.Errorf("merging shards: every shard was refused: %s", rep.Refused[0].Reason)
		}
	}
	shards, plan, err := mergePlan(found, o, rep)
	if err != nil {
		return nil, rep, fmt.Errorf("merging shards: %w", err)
	}
	mg := newMerger(plan)
	mg.strict = o.Replan != nil
	refused := map[int]bool{}
	for _, r := range rep.Refused {
		refused[r.Shard.Index] = true
		mg.unplaced[r.Shard.Index] = refusedWhy(r)
	}
	next := 0
	for i := 1; i <= plan.Count; i++ {
		if next == len(shards) || shards[next].m.Shard.Index != i {
			if !refused[i] {
				rep.Missing = append(rep.Missing, i)
			}
			continue
		}
		s := shards[next]
		next++
		ok, err := mg.add(s)
		if err != nil && mg.strict {
			// Results that do not fit the merge's plan: the whole shard is refused.
			r := Refusal{Shard: s.m.Shard, Dir: s.dir, Reason: err.Error()}
			rep.Refused = append(rep.Refused, r)
			mg.unplaced[i] = refusedWhy(r)
			continue
		}
		if err != nil {
			return nil, rep, fmt.Errorf("merging shards: %w", err)
		}
		rep.Shards = append(rep.Shards, Found{Shard: s.m.Shard, Dir: s.dir, Results: ok})
		if !ok {
			rep.Missing = append(rep.Missing, i)
		}
	}
	return mg.run(), rep, nil
}

// mergePlan is the plan the merge places results in and the shards that carry it, sorted
// by index: the merge's own (o.Replan), or, without one, the plan the shards agree on.
func mergePlan(found []shardDir, o MergeOptions, rep *Report) ([]shardDir, *Plan, error) {
	if o.Replan == nil {
		shards, err := agree(found, o.SHA)
		if err != nil {
			return nil, nil, err
		}
		// The shards agree on the fingerprint: one plan, read and checked in full, is all of theirs.
		full, err := readManifest(filepath.Join(shards[0].dir, ManifestFile))
		if err != nil {
			return nil, nil, err
		}
		if full.Plan.Fingerprint != shards[0].m.Plan.Fingerprint {
			return nil, nil, fmt.Errorf("%s changed while it was read", filepath.Join(shards[0].dir, ManifestFile))
		}
		return shards, full.Plan, nil
	}
	kept, plans, err := replanned(found, o.Replan, rep)
	if err != nil {
		return nil, nil, err
	}
	if len(kept) == 0 {
		// Every shard was refused: their tests are errors, in the merge's plan for the count
		// they claim (when they claim one).
		counts := map[int]bool{}
		for _, s := range found {
			counts[s.m.Plan.Count] = true
		}
		if len(counts) != 1 {
			return nil, nil, fmt.Errorf("no shard carries the plan this merge computed from its checkout, and they claim different shard counts: %s", rep.Refused[0].Reason)
		}
		return nil, plans[found[0].m.Plan.Count], nil
	}
	shards, err := agree(kept, o.SHA)
	if err != nil {
		return nil, nil, err
	}
	return shards, plans[shards[0].m.Plan.Count], nil
}

// readResults decodes a shard's results.json, streamed; nil, nil when it is missing.
func readResults(dir string) (*result.Run, error) {
	path := filepath.Join(dir, ResultsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	run, err := decodeRun(f, nil)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	switch {
	case run.SchemaVersion <= 0:
		return nil, fmt.Errorf("%s: no schema_version: not an evalgate results.json", path)
	case run.SchemaVersion > result.SchemaVersion:
		return nil, fmt.Errorf("%s: schema_version %d is newer than this evalgate understands (%d): merge with the evalgate that ran the shards", path, run.SchemaVersion, result.SchemaVersion)
	}
	return run, nil
}

// merger collects the shards' results into the plan's rows.
type merger struct {
	plan *Plan
	rows *rowIndex
	// suites are the planned suites' results as a shard reported them (nil = none did).
	suites []*result.SuiteResult
	// loadErrors are the load-error suites of the first shard with results, by path.
	loadErrors map[string]*result.SuiteResult
	// first is the first shard with results: thresholds and context come from it.
	first    *result.Run
	start    time.Time
	finish   time.Time
	budget   *result.Budget
	unplaced map[int]string // shard index → why its rows are missing
	// strict checks a shard's results against the plan before placing any of them, so that a
	// shard whose results do not fit can be refused whole.
	strict bool
}

func newMerger(p *Plan) *merger {
	return &merger{plan: p, rows: newRowIndex(p), suites: make([]*result.SuiteResult, len(p.Suites)), unplaced: map[int]string{}}
}

// add places one shard's results; false when it wrote none.
func (mg *merger) add(s shardDir) (bool, error) {
	spec := s.m.Shard
	run, err := readResults(s.dir)
	if err != nil || run == nil {
		return false, err
	}
	path := filepath.Join(s.dir, ResultsFile)
	if run.Shard != "" && run.Shard != spec.String() {
		return false, fmt.Errorf("%s says it is shard %s, its %s says %s", path, run.Shard, ManifestFile, spec)
	}
	if mg.strict {
		if err := mg.fits(run, spec, path); err != nil {
			return false, err
		}
	}
	mg.unplaced[spec.Index] = fmt.Sprintf("shard %s did not report this test", spec)
	isLoadErr := map[string]bool{}
	for _, p := range mg.plan.LoadErrors {
		isLoadErr[p] = true
	}
	first := mg.first == nil
	if first {
		mg.first, mg.loadErrors = run, map[string]*result.SuiteResult{}
	}
	for _, sr := range run.Suites {
		if sr.Error != "" && len(sr.Tests) == 0 && isLoadErr[sr.Path] {
			if _, seen := mg.loadErrors[sr.Path]; first && !seen {
				mg.loadErrors[sr.Path] = sr
			}
			continue
		}
		if err := mg.placeSuite(sr, spec, path); err != nil {
			return false, err
		}
	}
	mg.times(run)
	return true, nil
}

// fits checks, placing nothing, that every result of a shard has a row the plan gives it.
func (mg *merger) fits(run *result.Run, spec Spec, path string) error {
	isLoadErr := map[string]bool{}
	for _, p := range mg.plan.LoadErrors {
		isLoadErr[p] = true
	}
	taken := map[int32]bool{}
	for _, sr := range run.Suites {
		if sr.Error != "" && len(sr.Tests) == 0 && isLoadErr[sr.Path] {
			continue
		}
		if len(mg.rows.suites[sr.Path]) == 0 {
			return fmt.Errorf("%s: suite %s is not in the plan of shard %s", path, sr.Path, spec)
		}
		for _, tr := range sr.Tests {
			if tr == nil {
				return fmt.Errorf("%s: suite %s has a null test", path, sr.Path)
			}
			r, err := mg.rows.find(sr.Path, tr, spec.Index, func(r int32) bool { return taken[r] || mg.rows.out[r] != nil })
			if err != nil {
				return fmt.Errorf("%s: shard %s: %w", path, spec, err)
			}
			taken[r] = true
		}
	}
	return nil
}

func (mg *merger) placeSuite(sr *result.SuiteResult, spec Spec, path string) error {
	positions := mg.rows.suites[sr.Path]
	if len(positions) == 0 {
		return fmt.Errorf("%s: suite %s is not in the plan of shard %s", path, sr.Path, spec)
	}
	for _, i := range positions {
		if mg.suites[i] == nil || (mg.suites[i].Error == "" && sr.Error != "") {
			mg.suites[i] = sr
		}
	}
	for _, tr := range sr.Tests {
		if tr == nil {
			return fmt.Errorf("%s: suite %s has a null test", path, sr.Path)
		}
		if err := mg.rows.place(sr.Path, tr, spec.Index); err != nil {
			return fmt.Errorf("%s: shard %s: %w", path, spec, err)
		}
	}
	return nil
}

// times widens the merged run's span to the shard's and adds up budgets.
func (mg *merger) times(run *result.Run) {
	if mg.start.IsZero() || run.StartedAt.Before(mg.start) {
		mg.start = run.StartedAt
	}
	if run.FinishedAt.After(mg.finish) {
		mg.finish = run.FinishedAt
	}
	if b := run.Budget; b != nil {
		if mg.budget == nil {
			mg.budget = &result.Budget{}
		}
		mg.budget.LimitUSD += b.LimitUSD
		mg.budget.SpentUSD += b.SpentUSD
		mg.budget.NotRun += b.NotRun
	}
}

// run assembles the merged run: planned suites in plan order, every planned row (an error
// for one no shard reported), then the load errors, summarised as the engine summarises.
func (mg *merger) run() *result.Run {
	run := &result.Run{SchemaVersion: result.SchemaVersion, Thresholds: result.DefaultThresholds, StartedAt: mg.start, FinishedAt: mg.finish, Budget: mg.budget}
	if mg.first != nil {
		run.Thresholds = mg.first.Thresholds
		if c := mg.first.Context; c != nil {
			cp := *c
			run.Context = &cp
		}
	}
	for i, ps := range mg.plan.Suites {
		sr := &result.SuiteResult{Name: ps.Name, Path: ps.Path, Format: ps.Format, Target: ps.Target}
		if got := mg.suites[i]; got != nil {
			sr.Name, sr.Format, sr.Target, sr.Why, sr.Error = got.Name, got.Format, got.Target, got.Why, got.Error
		}
		sr.Tests = mg.rows.results(i, mg.plan, mg.unplaced)
		run.Suites = append(run.Suites, sr)
	}
	for _, p := range mg.plan.LoadErrors {
		sr := mg.loadErrors[p]
		if sr == nil {
			sr = &result.SuiteResult{Name: strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), Path: p, Error: "this suite failed to load; no shard's results say why"}
		}
		run.Suites = append(run.Suites, sr)
	}
	rubric.SummarizeRun(run)
	return run
}
