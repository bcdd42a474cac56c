package shard

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/result"
)

// rowKey names one planned row: a test of a suite, on a matrix target ("" outside a matrix).
type rowKey struct{ suite, test, target string }

// rowIndex holds every planned row in plan order and where each shard's results go, in one
// map and flat slices: a merge is linear in the rows.
type rowIndex struct {
	keys  []rowKey
	shard []int
	out   []*result.TestResult
	// head is the first row of a key, next the following row with the same key (-1 = none):
	// a selection naming a suite twice plans its rows twice.
	head map[rowKey]int32
	next []int32
	// start[i] is suite i's first row; start[len(suites)] is the total.
	start []int
	// suites are the positions of the planned suites of a path.
	suites map[string][]int
}

func newRowIndex(p *Plan) *rowIndex {
	n := 0
	for _, s := range p.Suites {
		for _, t := range s.Tests {
			n += max(len(t.Rows), 1)
		}
	}
	ix := &rowIndex{keys: make([]rowKey, 0, n), shard: make([]int, 0, n), out: make([]*result.TestResult, n),
		head: make(map[rowKey]int32, n), next: make([]int32, n), start: make([]int, 0, len(p.Suites)+1), suites: map[string][]int{}}
	last := map[rowKey]int32{}
	add := func(k rowKey, shard int) {
		r := int32(len(ix.keys))
		ix.keys, ix.shard, ix.next[r] = append(ix.keys, k), append(ix.shard, shard), -1
		if prev, ok := last[k]; ok {
			ix.next[prev] = r
		} else {
			ix.head[k] = r
		}
		last[k] = r
	}
	for i, s := range p.Suites {
		ix.start = append(ix.start, len(ix.keys))
		ix.suites[s.Path] = append(ix.suites[s.Path], i)
		for _, t := range s.Tests {
			if len(t.Rows) == 0 {
				add(rowKey{s.Path, t.ID, ""}, t.Shard)
			}
			for _, target := range t.Rows {
				add(rowKey{s.Path, t.ID, target}, t.Shard)
			}
		}
	}
	ix.start = append(ix.start, len(ix.keys))
	return ix
}

// place puts a shard's result in the first free row of its key planned for that shard.
func (ix *rowIndex) place(suitePath string, tr *result.TestResult, shard int) error {
	r, err := ix.find(suitePath, tr, shard, func(r int32) bool { return ix.out[r] != nil })
	if err != nil {
		return err
	}
	ix.out[r] = tr
	return nil
}

// find is the first row of a result's key planned for shard that is not taken.
func (ix *rowIndex) find(suitePath string, tr *result.TestResult, shard int, taken func(int32) bool) (int32, error) {
	k := rowKey{suitePath, tr.ID, ""}
	if tr.Matrix {
		k.target = tr.Target
	}
	r, ok := ix.head[k]
	if !ok {
		return 0, fmt.Errorf("test %s is not in the plan", label(k))
	}
	planned := false
	for ; r >= 0; r = ix.next[r] {
		if ix.shard[r] != shard {
			continue
		}
		planned = true
		if !taken(r) {
			return r, nil
		}
	}
	if planned {
		return 0, fmt.Errorf("test %s is reported twice", label(k))
	}
	return 0, fmt.Errorf("test %s was not planned for this shard", label(k))
}

func label(k rowKey) string {
	s := k.suite + ": " + k.test
	if k.target != "" {
		s += "@" + k.target
	}
	return s
}

// results are suite i's rows in plan order, a row no shard reported being an error that
// names its shard: why[shard] when the shard wrote results, else that it wrote none.
func (ix *rowIndex) results(i int, p *Plan, why map[int]string) []*result.TestResult {
	lo, hi := ix.start[i], ix.start[i+1]
	out := make([]*result.TestResult, hi-lo)
	copy(out, ix.out[lo:hi])
	ps := &p.Suites[i]
	r := 0
	for _, t := range ps.Tests {
		for k := range max(len(t.Rows), 1) {
			if out[r] == nil {
				target := ""
				if len(t.Rows) > 0 {
					target = t.Rows[k]
				}
				out[r] = missing(ps, t, target, p.Count, why)
			}
			r++
		}
	}
	return out
}

// missing is the result of a planned row no shard reported: an error, never a pass.
func missing(ps *PlannedSuite, t PlannedTest, target string, count int, why map[int]string) *result.TestResult {
	msg, ok := why[t.Shard]
	if !ok {
		msg = fmt.Sprintf("shard %s reported no results (its job is missing or crashed); this test was not run", Spec{t.Shard, count})
	}
	return &result.TestResult{Suite: ps.Name, ID: t.ID, File: t.File, Line: t.Line, Verdict: result.Error, FailureStage: result.StageSetup,
		Error: msg, Target: target, Matrix: target != ""}
}
