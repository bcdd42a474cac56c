package shard

import (
	"fmt"
	"path/filepath"
)

// A shard's artifact is written by a job that ran the agents under test, so nothing in it is
// taken on its word: with MergeOptions.Replan the merge computes the plan itself, from its own
// checkout and event, and a shard whose plan differs is refused. The fingerprint is then a
// check of agreement with that plan, not a claim. What the plan cannot say — which verdicts
// a planned test got — is as trustworthy as the job that wrote it (docs/security.md).

// Refusal is a shard the merge did not take, and why. Its tests are error results.
type Refusal struct {
	Shard  Spec
	Dir    string
	Reason string
}

// replanned checks each found shard against the plan the merge computes for its count and
// salt. It returns the shards that carry that plan, and a plan for each count asked: the one
// a kept shard carries, else the first computed.
func replanned(found []shardDir, replan func(count int, salt string) (*Plan, error), rep *Report) ([]shardDir, map[int]*Plan, error) {
	type key struct {
		count int
		salt  string
	}
	plans := map[key]*Plan{}
	byCount := map[int]*Plan{}
	var kept []shardDir
	for _, s := range found {
		k := key{s.m.Plan.Count, s.m.Plan.Salt}
		want, ok := plans[k]
		if !ok {
			var err error
			if want, err = replan(k.count, k.salt); err != nil {
				return nil, nil, fmt.Errorf("re-planning the selection for %d shards: %w", k.count, err)
			}
			plans[k] = want
			if byCount[k.count] == nil {
				byCount[k.count] = want
			}
		}
		if s.m.Plan.Fingerprint != want.Fingerprint {
			rep.Refused = append(rep.Refused, Refusal{Shard: s.m.Shard, Dir: s.dir, Reason: planDifference(s, want)})
			continue
		}
		byCount[k.count] = want
		kept = append(kept, s)
	}
	return kept, byCount, nil
}

// planDifference says how a shard's plan differs from the merge's, as precisely as its
// manifest allows.
func planDifference(s shardDir, want *Plan) string {
	lead := fmt.Sprintf("its plan (%s) is not the plan this merge computed from its own checkout (%s)",
		short(s.m.Plan.Fingerprint), want.ShortFingerprint())
	got, err := readManifest(filepath.Join(s.dir, ManifestFile))
	if err != nil {
		return lead + ": " + err.Error()
	}
	mine, theirs := testsOf(want, s.m.Shard.Index), testsOf(got.Plan, s.m.Shard.Index)
	for _, k := range theirs.order {
		if !mine.set[k] {
			return fmt.Sprintf("%s: it claims test %s, which the merge's plan does not give shard %s", lead, label(k), s.m.Shard)
		}
	}
	for _, k := range mine.order {
		if !theirs.set[k] {
			return fmt.Sprintf("%s: it leaves out test %s, which the merge's plan gives shard %s", lead, label(k), s.m.Shard)
		}
	}
	if got.Plan.Balance != want.Balance {
		return fmt.Sprintf("%s: it was balanced by %s, the merge by %s (give the merge the shards' durations file)", lead, got.Plan.Balance, want.Balance)
	}
	return lead + ": the same tests for this shard, but a different selection or split elsewhere (give the merge the same paths, filters, target, trials and durations as the shards)"
}

// plannedTests are one shard's rows in a plan, in order.
type plannedTests struct {
	order []rowKey
	set   map[rowKey]bool
}

func testsOf(p *Plan, shard int) plannedTests {
	out := plannedTests{set: map[rowKey]bool{}}
	for _, s := range p.Suites {
		for _, t := range s.Tests {
			if t.Shard != shard {
				continue
			}
			targets := t.Rows
			if len(targets) == 0 {
				targets = []string{""}
			}
			for _, target := range targets {
				k := rowKey{s.Path, t.ID, target}
				out.order, out.set[k] = append(out.order, k), true
			}
		}
	}
	return out
}

func short(fp string) string { return fp[:min(12, len(fp))] }

// refusedWhy is the error each test of a refused shard gets.
func refusedWhy(r Refusal) string {
	return fmt.Sprintf("shard %s was refused (%s: %s); this test was not graded", r.Shard, r.Dir, r.Reason)
}
