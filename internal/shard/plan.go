package shard

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// planVersion is the version of the Plan's JSON and of its fingerprint's encoding.
const planVersion = 1

// Balance modes: what a unit of tests weighs when shards are filled.
const (
	balanceCount     = "count"     // matrix rows × trials
	balanceDurations = "durations" // a previous run's durations
)

// Plan assigns every selected test to a shard.
type Plan struct {
	Version int `json:"version"`
	Count   int `json:"count"`
	// Fingerprint is the hex SHA-256 of the selection, the assignment and Options.Salt: shards
	// with equal fingerprints ran parts of one split.
	Fingerprint string `json:"fingerprint"`
	// Balance is balanceCount or balanceDurations.
	Balance string `json:"balance"`
	// Suites are in selection order.
	Suites []PlannedSuite `json:"suites"`
	// LoadErrors are the paths of the suites that failed to load; every shard reports them.
	LoadErrors []string `json:"load_errors,omitempty"`
	// Salt is Options.Salt, kept so a merge can check the fingerprint against the plan.
	Salt string `json:"salt,omitempty"`
}

// PlannedSuite is one selected suite and its tests in file order.
type PlannedSuite struct {
	Path string `json:"path"`
	Name string `json:"name"`
	// Format and Target are what the suite's result says when no shard reported it.
	Format string        `json:"format,omitempty"`
	Target string        `json:"target,omitempty"`
	Tests  []PlannedTest `json:"tests"`
}

// PlannedTest is one selected test and the shard that runs it.
type PlannedTest struct {
	ID   string `json:"id"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Rows are the matrix targets the test runs on, in order; nil = one row.
	Rows []string `json:"rows,omitempty"`
	// Shard is the 1-based index of the shard that runs it.
	Shard int `json:"shard"`
}

// Options say how tests run and weigh.
type Options struct {
	// SingleTarget ignores execution.targets matrices (--target), as the engine does.
	SingleTarget bool
	// Trials, when > 0, overrides every suite's trial count (--trials).
	Trials int
	// Durations, when they cover a selected test, balance by time instead of count.
	Durations Durations
	// Salt is the caller's digest of the flags that change results; it goes into the
	// fingerprint so shards run with different flags are not merged.
	Salt string
}

// unit is tests that must run in one shard, with what they weigh.
type unit struct {
	tests  []*PlannedTest
	weight int64
	// suite and first order units of equal weight: by the first test's suite path, then the
	// suite's position, then the test's.
	path         string
	suite, first int
}

// NewPlan splits the selection into count shards (count is clamped to 1…maxShards; validate
// it with ParseSpec first). Suites are in the order given; loadErrors are the suites that
// could not be loaded.
func NewPlan(suites []*suite.Suite, loadErrors []*result.SuiteResult, count int, o Options) *Plan {
	p := &Plan{Version: planVersion, Count: min(max(count, 1), maxShards), Balance: balanceCount, Salt: o.Salt}
	for _, le := range loadErrors {
		p.LoadErrors = append(p.LoadErrors, le.Path)
	}
	p.Suites = make([]PlannedSuite, len(suites))
	for i, s := range suites {
		p.Suites[i] = plannedSuite(s, o.SingleTarget)
	}
	units := p.units(suites, o)
	p.assign(units)
	p.Fingerprint = p.fingerprint()
	return p
}

func plannedSuite(s *suite.Suite, single bool) PlannedSuite {
	ps := PlannedSuite{Path: s.Path, Name: s.Name, Format: string(s.Format), Target: s.Target, Tests: make([]PlannedTest, len(s.Tests))}
	if !single && len(s.Matrix) > 0 {
		// As the engine names a matrix suite's target.
		ps.Target = strings.Join(s.MatrixNames(), ", ")
	}
	for j, t := range s.Tests {
		pt := PlannedTest{ID: t.ID, File: t.Pos.File, Line: t.Pos.Line}
		if runs := s.Runs(t); !single && len(runs) > 0 {
			pt.Rows = slices.Clone(runs)
		}
		ps.Tests[j] = pt
	}
	return ps
}

// units groups each suite's tests into units and weighs them.
func (p *Plan) units(suites []*suite.Suite, o Options) []*unit {
	var units []*unit
	for i, s := range suites {
		parent := groups(s)
		byRoot := map[int]*unit{}
		for j := range s.Tests {
			r := find(parent, j)
			u := byRoot[r]
			if u == nil {
				u = &unit{path: s.Path, suite: i, first: j}
				byRoot[r] = u
				units = append(units, u)
			}
			u.tests = append(u.tests, &p.Suites[i].Tests[j])
		}
	}
	p.weigh(units, suites, o)
	return units
}

// weigh sets each unit's weight: its rows × trials, or, when the durations know any selected
// test, its tests' durations, a test without one counting the mean duration per row and
// trial of those that have one.
func (p *Plan) weigh(units []*unit, suites []*suite.Suite, o Options) {
	runs := func(u *unit, t *PlannedTest) int64 {
		return int64(max(len(t.Rows), 1) * trials(suites[u.suite], o.Trials))
	}
	var known time.Duration
	var knownRuns int64
	for _, u := range units {
		for _, t := range u.tests {
			if d, ok := o.Durations[Key{p.Suites[u.suite].Path, t.ID}]; ok {
				known += d
				knownRuns += runs(u, t)
			}
		}
	}
	if knownRuns > 0 {
		p.Balance = balanceDurations
	}
	for _, u := range units {
		for _, t := range u.tests {
			n := runs(u, t)
			if p.Balance == balanceCount {
				u.weight += n
				continue
			}
			d, ok := o.Durations[Key{p.Suites[u.suite].Path, t.ID}]
			if !ok {
				d = known / time.Duration(knownRuns) * time.Duration(n)
			}
			// A test that took no measurable time still occupies a row: without a floor,
			// zero-weight units would all go to the first shard.
			u.weight += int64(max(d, time.Millisecond))
		}
	}
}

// trials is how often each test of s runs, as the engine counts it.
func trials(s *suite.Suite, override int) int {
	n := 1
	if s.Trials != nil {
		n = s.Trials.Count
	}
	if override > 0 {
		n = override
	}
	return max(n, 1)
}

// assign gives each unit, heaviest first, to the least-loaded shard (lowest index on a tie):
// the LPT rule, within 4/3 of the best split.
func (p *Plan) assign(units []*unit) {
	slices.SortStableFunc(units, func(a, b *unit) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), strings.Compare(a.path, b.path), cmp.Compare(a.suite, b.suite), cmp.Compare(a.first, b.first))
	})
	load := make([]int64, p.Count)
	for _, u := range units {
		best := 0
		for i := 1; i < len(load); i++ {
			if load[i] < load[best] {
				best = i
			}
		}
		load[best] += u.weight
		for _, t := range u.tests {
			t.Shard = best + 1
		}
	}
}

// fingerprint hashes what shards must agree on. File and line stay out: they name where the
// suite was checked out, which may differ between runners.
func (p *Plan) fingerprint() string {
	type test struct {
		ID    string   `json:"id"`
		Rows  []string `json:"rows"`
		Shard int      `json:"shard"`
	}
	type ste struct {
		Path  string `json:"path"`
		Name  string `json:"name"`
		Tests []test `json:"tests"`
	}
	canon := struct {
		Version    int      `json:"version"`
		Count      int      `json:"count"`
		Balance    string   `json:"balance"`
		Suites     []ste    `json:"suites"`
		LoadErrors []string `json:"load_errors"`
		Salt       string   `json:"salt"`
	}{Version: p.Version, Count: p.Count, Balance: p.Balance, LoadErrors: p.LoadErrors, Salt: p.Salt}
	for _, s := range p.Suites {
		cs := ste{Path: s.Path, Name: s.Name, Tests: make([]test, len(s.Tests))}
		for i, t := range s.Tests {
			cs.Tests[i] = test{t.ID, t.Rows, t.Shard}
		}
		canon.Suites = append(canon.Suites, cs)
	}
	h := sha256.New()
	// Strings and ints into a hash: encoding cannot fail.
	_ = json.NewEncoder(h).Encode(canon)
	return hex.EncodeToString(h.Sum(nil))
}

// ShortFingerprint is the fingerprint's first 12 characters, enough to tell plans apart in a
// log line.
func (p *Plan) ShortFingerprint() string { return p.Fingerprint[:min(12, len(p.Fingerprint))] }

// rows counts the rows (matrix rows count one each, trials not) planned for each shard;
// index i-1 is shard i.
func (p *Plan) rows() []int {
	out := make([]int, p.Count)
	for _, s := range p.Suites {
		for _, t := range s.Tests {
			if t.Shard >= 1 && t.Shard <= p.Count {
				out[t.Shard-1] += max(len(t.Rows), 1)
			}
		}
	}
	return out
}
