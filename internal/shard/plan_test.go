package shard

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
	"github.com/google/go-cmp/cmp"
)

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Spec
		wantErr string
	}{
		{"2/4", Spec{2, 4}, ""},
		{"1/1", Spec{1, 1}, ""},
		{" 4/4 ", Spec{4, 4}, ""},
		{"256/256", Spec{256, 256}, ""},
		{"0/4", Spec{}, "i must be between 1 and n (4), not 0"},
		{"5/4", Spec{}, "i must be between 1 and n (4), not 5"},
		{"1/0", Spec{}, "n must be between 1 and 256, not 0"},
		{"1/257", Spec{}, "n must be between 1 and 256, not 257"},
		{"2", Spec{}, "want i/n"},
		{"", Spec{}, "want i/n"},
		{"a/4", Spec{}, "whole numbers"},
		{"+2/4", Spec{}, "whole numbers"},
		{"-1/4", Spec{}, "whole numbers"},
		{"2/4/6", Spec{}, "whole numbers"},
		{"2 /4", Spec{}, "whole numbers"},
		{"99999999999999999999/4", Spec{}, "whole numbers"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSpec(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSpec(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSpec(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if round, err := ParseSpec(got.String()); err != nil || round != got {
				t.Fatalf("String %q does not parse back: %v, %v", got, round, err)
			}
		})
	}
}

// shardOf maps "path:id" to its planned shard.
func shardOf(p *Plan) map[string]int {
	m := map[string]int{}
	for _, s := range p.Suites {
		for _, t := range s.Tests {
			m[s.Path+":"+t.ID] = t.Shard
		}
	}
	return m
}

func TestPlanDeterministic(t *testing.T) {
	t.Parallel()
	suites := testSuites()
	first := NewPlan(suites, testLoadErrors, 3, Options{Salt: "s"})
	// Many times over, so a map's iteration order would show.
	for range 20 {
		if diff := cmp.Diff(first, NewPlan(testSuites(), testLoadErrors, 3, Options{Salt: "s"})); diff != "" {
			t.Fatalf("plans differ (-first +again):\n%s", diff)
		}
	}
	for i, s := range first.Suites {
		if s.Path != suites[i].Path || len(s.Tests) != len(suites[i].Tests) {
			t.Fatalf("suite %d planned as %s with %d tests, want the selection's order", i, s.Path, len(s.Tests))
		}
	}
	if first.rows()[0]+first.rows()[1]+first.rows()[2] != 7+8+5+3 {
		t.Fatalf("rows per shard %v do not add up to the selection's 23", first.rows())
	}
	// The selection's order changes the plan's, not who runs what.
	shuffled := testSuites()
	slices.Reverse(shuffled)
	other := NewPlan(shuffled, testLoadErrors, 3, Options{Salt: "s"})
	if diff := cmp.Diff(shardOf(first), shardOf(other)); diff != "" {
		t.Fatalf("assignment depends on suite order (-in order +reversed):\n%s", diff)
	}
}

func TestPlanKeepsUnitsTogether(t *testing.T) {
	t.Parallel()
	hooks := mkSuite("evals/hooks.yaml", "h1", "h2", "h3", "h4")
	hooks.Workspace = &suite.Workspace{Hooks: suite.WorkspaceHooks{BeforeAll: &suite.Hook{Command: []string{"true"}}}}
	static := mkSuite("evals/static.yaml", "p1", "p2", "p3")
	static.Workspace = &suite.Workspace{Path: "/srv/ws"}
	// Only the tests naming this workspace share it; the others run on the suite's, not shared.
	own := mkSuite("evals/own.yaml", "o1", "o2", "o3", "o4")
	wsOwn := &suite.Workspace{Isolation: "shared"}
	own.Tests[0].Workspace, own.Tests[2].Workspace = wsOwn, wsOwn
	own.Workspace = &suite.Workspace{Isolation: "per_test"}
	off := mkSuite("evals/off.yaml", "f1", "f2", "f3", "f4")
	off.Workspace = &suite.Workspace{Hooks: suite.WorkspaceHooks{Disabled: true, AfterAll: &suite.Hook{Command: []string{"true"}}}}
	suites := append(testSuites(), hooks, static, own, off)

	tests := []struct {
		name     string
		together [][]string // path:id groups that must share a shard
		apart    []string   // tests that, being free, must not all share one
	}{
		{"depends_on", [][]string{{"evals/deps.yaml:setup", "evals/deps.yaml:uses-setup", "evals/deps.yaml:also-uses"}}, nil},
		{"isolation shared", [][]string{{"evals/shared.yaml:s1", "evals/shared.yaml:s2", "evals/shared.yaml:s3"}}, nil},
		{"before_all", [][]string{{"evals/hooks.yaml:h1", "evals/hooks.yaml:h2", "evals/hooks.yaml:h3", "evals/hooks.yaml:h4"}}, nil},
		{"static path", [][]string{{"evals/static.yaml:p1", "evals/static.yaml:p2", "evals/static.yaml:p3"}}, nil},
		{"a test's own workspace", [][]string{{"evals/own.yaml:o1", "evals/own.yaml:o3"}}, []string{"evals/own.yaml:o2", "evals/own.yaml:o4", "evals/basic.yaml:b1", "evals/basic.yaml:b2"}},
		{"disabled hooks share nothing", nil, []string{"evals/off.yaml:f1", "evals/off.yaml:f2", "evals/off.yaml:f3", "evals/off.yaml:f4"}},
	}
	for _, n := range []int{2, 4, 8} {
		got := shardOf(NewPlan(suites, nil, n, Options{}))
		for _, tt := range tests {
			for _, g := range tt.together {
				for _, id := range g[1:] {
					if got[id] != got[g[0]] {
						t.Errorf("%s, %d shards: %s in shard %d, %s in %d", tt.name, n, g[0], got[g[0]], id, got[id])
					}
				}
			}
			if len(tt.apart) > 0 && !slices.ContainsFunc(tt.apart, func(id string) bool { return got[id] != got[tt.apart[0]] }) {
				t.Errorf("%s, %d shards: %v all in shard %d, as if they were one unit", tt.name, n, tt.apart, got[tt.apart[0]])
			}
		}
	}
}

// loads sums the planned weights of each shard, per w.
func loads(p *Plan, w func(path string, t PlannedTest) int64) []int64 {
	out := make([]int64, p.Count)
	for _, s := range p.Suites {
		for _, t := range s.Tests {
			out[t.Shard-1] += w(s.Path, t)
		}
	}
	return out
}

func TestPlanBalancesByCount(t *testing.T) {
	t.Parallel()
	// Weights: the matrix test 3 rows, the two tests of a suite of 2 trials 2 each, three
	// plain tests 1 each. LPT: m→1 (3); t1→2 (2); t2→2 (4); p1→1 (4); p2→1 (5, a tie goes to
	// the lower index); p3→2 (5).
	m := matrixSuite("a-matrix.yaml", "m")
	tr := mkSuite("b-trials.yaml", "t1", "t2")
	tr.Trials = &suite.Trials{Count: 2}
	p := NewPlan([]*suite.Suite{mkSuite("c-plain.yaml", "p1", "p2", "p3"), tr, m}, nil, 2, Options{})
	want := map[string]int{"a-matrix.yaml:m": 1, "b-trials.yaml:t1": 2, "b-trials.yaml:t2": 2, "c-plain.yaml:p1": 1, "c-plain.yaml:p2": 1, "c-plain.yaml:p3": 2}
	if p.Balance != balanceCount {
		t.Fatalf("balance %s, want count", p.Balance)
	}
	if diff := cmp.Diff(want, shardOf(p)); diff != "" {
		t.Fatalf("assignment (-want +got):\n%s", diff)
	}
	// --trials overrides the suite's count: every test then weighs rows × 3.
	p = NewPlan([]*suite.Suite{mkSuite("c-plain.yaml", "p1", "p2", "p3"), tr, m}, nil, 2, Options{Trials: 3})
	w := map[string]int64{"a-matrix.yaml": 9, "b-trials.yaml": 3, "c-plain.yaml": 3}
	if diff := cmp.Diff([]int64{12, 12}, loads(p, func(path string, _ PlannedTest) int64 { return w[path] })); diff != "" {
		t.Fatalf("loads with --trials 3 (-want +got):\n%s", diff)
	}
	// --target runs a matrix test once.
	p = NewPlan([]*suite.Suite{m}, nil, 2, Options{SingleTarget: true})
	if rows := p.Suites[0].Tests[0].Rows; rows != nil || p.Suites[0].Target != "default" {
		t.Fatalf("single target: rows %v, target %q", rows, p.Suites[0].Target)
	}
}

func TestPlanBalancesByDurations(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	s := mkSuite("evals/d.yaml", "a", "b", "c", "d", "e", "f", "g", "new")
	d := Durations{}
	for i, id := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		d[Key{"evals/d.yaml", id}] = ms(70 - 10*i) // a 70 ms … g 10 ms
	}
	d[Key{"evals/other.yaml", "x"}] = ms(5000) // not selected: no weight
	p := NewPlan([]*suite.Suite{s}, nil, 3, Options{Durations: d})
	if p.Balance != balanceDurations {
		t.Fatalf("balance %s, want durations", p.Balance)
	}
	// "new" has no duration and weighs the mean, 40 ms; it ties with d and goes after it, in
	// test order: a70→1, b60→2, c50→3, d40→3 (90), new40→2 (100), e30→1 (100), f20→3 (110),
	// g10→1 (110, the lower index of a tie).
	want := map[string]int{"a": 1, "b": 2, "c": 3, "d": 3, "new": 2, "e": 1, "f": 3, "g": 1}
	got := map[string]int{}
	for _, t := range p.Suites[0].Tests {
		got[t.ID] = t.Shard
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("assignment (-want +got):\n%s", diff)
	}
	weight := func(_ string, t PlannedTest) int64 {
		if t.ID == "new" {
			return 40
		}
		return int64(d[Key{"evals/d.yaml", t.ID}] / time.Millisecond)
	}
	if diff := cmp.Diff([]int64{110, 100, 110}, loads(p, weight)); diff != "" {
		t.Fatalf("loads in ms (-want +got):\n%s", diff)
	}
	// Durations that know no selected test balance by count.
	if p := NewPlan([]*suite.Suite{s}, nil, 3, Options{Durations: Durations{{"evals/other.yaml", "x"}: ms(1)}}); p.Balance != balanceCount {
		t.Fatalf("balance %s, want count", p.Balance)
	}
	// Zero durations still spread: each row weighs at least a millisecond.
	zero := Durations{}
	for _, t := range s.Tests {
		zero[Key{"evals/d.yaml", t.ID}] = 0
	}
	if diff := cmp.Diff([]int{2, 2, 2, 2}, NewPlan([]*suite.Suite{s}, nil, 4, Options{Durations: zero}).rows()); diff != "" {
		t.Fatalf("zero durations: rows per shard (-want +got):\n%s", diff)
	}
}

func TestSelectCoversSelectionOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 4, 7, 40} {
		suites := testSuites()
		before := mustJSON(t, suites)
		p := NewPlan(suites, testLoadErrors, n, Options{})
		seen := map[*suite.Test]int{}
		for i := 1; i <= n; i++ {
			for _, s := range p.Select(suites, i) {
				if len(s.Tests) == 0 {
					t.Fatalf("%d shards: shard %d selects the empty suite %s", n, i, s.Path)
				}
				for _, tc := range s.Tests {
					seen[tc]++
				}
			}
		}
		for _, s := range suites {
			for _, tc := range s.Tests {
				if seen[tc] != 1 {
					t.Fatalf("%d shards: %s:%s selected %d times, want once", n, s.Path, tc.ID, seen[tc])
				}
			}
		}
		if len(seen) != 18 {
			t.Fatalf("%d shards: %d tests selected, want 18", n, len(seen))
		}
		if after := mustJSON(t, suites); after != before {
			t.Fatalf("%d shards: Select changed its input", n)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	base := NewPlan(testSuites(), testLoadErrors, 4, Options{Salt: "flags"})
	fewer := testSuites()
	fewer[0].Tests = fewer[0].Tests[1:]
	renamed := testSuites()
	renamed[1].Matrix[2].Name = "w"
	durs := func(a, b int) Durations {
		return Durations{{"evals/basic.yaml", "b1"}: ms(a), {"evals/basic.yaml", "b2"}: ms(b)}
	}
	tests := []struct {
		name string
		plan *Plan
		same bool
	}{
		{"same input", NewPlan(testSuites(), testLoadErrors, 4, Options{Salt: "flags"}), true},
		{"n", NewPlan(testSuites(), testLoadErrors, 3, Options{Salt: "flags"}), false},
		{"salt", NewPlan(testSuites(), testLoadErrors, 4, Options{Salt: "other flags"}), false},
		{"a test less", NewPlan(fewer, testLoadErrors, 4, Options{Salt: "flags"}), false},
		{"a matrix row renamed", NewPlan(renamed, testLoadErrors, 4, Options{Salt: "flags"}), false},
		{"no load errors", NewPlan(testSuites(), nil, 4, Options{Salt: "flags"}), false},
		{"by durations", NewPlan(testSuites(), testLoadErrors, 4, Options{Salt: "flags", Durations: durs(9000, 10)}), false},
	}
	for _, tt := range tests {
		if got := tt.plan.Fingerprint == base.Fingerprint; got != tt.same {
			t.Errorf("%s: same fingerprint = %v, want %v", tt.name, got, tt.same)
		}
		if len(tt.plan.Fingerprint) != 64 {
			t.Errorf("%s: fingerprint %q is not hex SHA-256", tt.name, tt.plan.Fingerprint)
		}
	}
	// Durations that move a test move the fingerprint; durations that move none do not.
	a := NewPlan(testSuites(), nil, 4, Options{Durations: durs(9000, 10)})
	b := NewPlan(testSuites(), nil, 4, Options{Durations: durs(10, 9000)})
	c := NewPlan(testSuites(), nil, 4, Options{Durations: durs(9001, 10)})
	if cmp.Equal(shardOf(a), shardOf(b)) || a.Fingerprint == b.Fingerprint {
		t.Fatalf("swapped durations: same assignment %v or fingerprint", shardOf(a))
	}
	if diff := cmp.Diff(shardOf(a), shardOf(c)); diff != "" || a.Fingerprint != c.Fingerprint {
		t.Fatalf("a millisecond more moved a test or the fingerprint (%s → %s); assignment (-before +after):\n%s", a.Fingerprint, c.Fingerprint, diff)
	}
}
