package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// orderTarget records when each run starts and ends, by test id and target.
type orderTarget struct {
	mu     sync.Mutex
	events []string
}

func (o *orderTarget) Run(_ context.Context, req *target.Request) (*result.Output, error) {
	key := req.Test.ID + "@" + req.Test.Target
	o.mu.Lock()
	o.events = append(o.events, "start "+key)
	o.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	o.mu.Lock()
	o.events = append(o.events, "end "+key)
	o.mu.Unlock()
	if strings.HasPrefix(req.Test.ID, "bad") {
		return nil, context.DeadlineExceeded
	}
	return &result.Output{Answer: "ok"}, nil
}

func (o *orderTarget) index(event string) int {
	for i, e := range o.events {
		if e == event {
			return i
		}
	}
	return -1
}

// depSuite builds a suite from id → (score, depends_on, policy) specs, in the given order.
func depSuite(specs ...depSpec) *suite.Suite {
	s := &suite.Suite{Name: "deps", Path: "evals/deps.eval.yaml"}
	for _, sp := range specs {
		t := &suite.Test{ID: sp.id, Input: []suite.Message{{Role: "user", Content: "do " + sp.id}},
			Graders:             []*suite.Grader{{Name: "g", Type: "fake", Weight: 1, Value: sp.score}},
			OnDependencyFailure: sp.policy, Targets: sp.targets}
		for _, d := range sp.deps {
			t.DependsOn = append(t.DependsOn, suite.Dependency{ID: d})
		}
		s.Tests = append(s.Tests, t)
	}
	return s
}

type depSpec struct {
	id      string
	score   float64
	deps    []string
	policy  string
	targets []string
}

func orderCfg(tg target.Target, workers int) Config {
	return Config{
		Workers: workers,
		Target: func(_ *suite.Suite, t *suite.Test) (target.Target, string, error) {
			name := t.Target
			if name == "" {
				name = "default"
			}
			return tg, name, nil
		},
		Grader: func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
			return scoreGrader{spec: g}, nil
		},
	}
}

func TestDependsOnRunsInWaves(t *testing.T) {
	t.Parallel()
	// "second" is written first but depends on "first": it must start after first ends, even
	// with workers to spare; "free" has no dependency and runs in the first wave.
	s := depSuite(
		depSpec{id: "second", score: 1, deps: []string{"first"}},
		depSpec{id: "third", score: 1, deps: []string{"second", "first"}},
		depSpec{id: "first", score: 1},
		depSpec{id: "free", score: 1},
	)
	tg := &orderTarget{}
	run, err := Run(t.Context(), []*suite.Suite{s}, orderCfg(tg, 4))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{"end first@", "start second@"}, {"end second@", "start third@"}, {"start free@", "end first@"}} {
		if a, b := tg.index(c[0]), tg.index(c[1]); a < 0 || b < 0 || a > b {
			t.Errorf("%q at %d, %q at %d; want the first before the second: %v", c[0], a, c[1], b, tg.events)
		}
	}
	// Results stay in file order, whatever the waves.
	var ids []string
	for _, tr := range run.Suites[0].Tests {
		ids = append(ids, tr.ID)
		if tr.Verdict != result.Pass {
			t.Errorf("%s: %s (%s)", tr.ID, tr.Verdict, tr.Error)
		}
	}
	if got := strings.Join(ids, ","); got != "second,third,first,free" {
		t.Errorf("order %s", got)
	}
}

func TestDependencyFailurePolicies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		dep       depSpec
		policy    string
		want      result.Verdict
		wantError string
		ran       bool
	}{
		{name: "default skips", dep: depSpec{id: "bad", score: 1}, want: result.Skip, wantError: "dependency failed (bad: error)"},
		{name: "skip", dep: depSpec{id: "bad", score: 1}, policy: "skip", want: result.Skip, wantError: "dependency failed (bad: error)"},
		{name: "fail is an error", dep: depSpec{id: "bad", score: 1}, policy: "fail", want: result.Error, wantError: "dependency failed (bad: error)"},
		{name: "run runs anyway", dep: depSpec{id: "bad", score: 1}, policy: "run", want: result.Pass, ran: true},
		// A dependency that ran and scored low is no failure (AgentV: only execution errors).
		{name: "low score is no failure", dep: depSpec{id: "low", score: 0.1}, want: result.Pass, ran: true},
		{name: "judge error is a failure", dep: depSpec{id: "nojudge", score: -1}, want: result.Skip, wantError: "dependency failed (nojudge: error)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := depSuite(c.dep,
				depSpec{id: "child", score: 1, deps: []string{c.dep.id}, policy: c.policy},
				depSpec{id: "grandchild", score: 1, deps: []string{"child"}})
			tg := &orderTarget{}
			run, err := Run(t.Context(), []*suite.Suite{s}, orderCfg(tg, 2))
			if err != nil {
				t.Fatal(err)
			}
			child := run.Suites[0].Tests[1]
			if child.Verdict != c.want || child.Error != c.wantError {
				t.Errorf("child: verdict %s error %q, want %s %q", child.Verdict, child.Error, c.want, c.wantError)
			}
			if ran := tg.index("start child@") >= 0; ran != c.ran {
				t.Errorf("child ran = %v, want %v", ran, c.ran)
			}
			if c.want == result.Error && child.FailureStage != result.StageSetup {
				t.Errorf("child failure stage %q", child.FailureStage)
			}
			// A test whose dependency was skipped or failed is itself blocked: skips chain.
			gc := run.Suites[0].Tests[2]
			if wantGC := map[bool]result.Verdict{true: result.Pass, false: result.Skip}[c.ran]; gc.Verdict != wantGC {
				t.Errorf("grandchild: %s (%s), want %s", gc.Verdict, gc.Error, wantGC)
			}
			if child.Verdict == result.Pass && run.Summary.Passed == 0 || child.Verdict == result.Skip && run.Summary.Skipped == 0 {
				t.Errorf("summary %+v", run.Summary)
			}
		})
	}
}

func TestMatrixRunsEachTestPerTarget(t *testing.T) {
	t.Parallel()
	s := depSuite(
		depSpec{id: "setup", score: 1},
		depSpec{id: "use", score: 1, deps: []string{"setup"}},
		depSpec{id: "only-y", score: 1, targets: []string{"y"}},
		depSpec{id: "bad", score: 1, targets: []string{"x"}},
		depSpec{id: "after-bad", score: 1, deps: []string{"bad"}},
	)
	s.Matrix = []*suite.MatrixTarget{{Name: "x"}, {Name: "y"}}
	tg := &orderTarget{}
	run, err := Run(t.Context(), []*suite.Suite{s}, orderCfg(tg, 4))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range run.Suites[0].Tests {
		if !tr.Matrix {
			t.Errorf("%s: not marked as a matrix run", tr.Label())
		}
		got = append(got, tr.Label()+"="+string(tr.Verdict))
	}
	// bad runs only on x (where it errors, so after-bad is skipped); on y, after-bad's
	// dependency does not run at all, which blocks it too.
	want := "setup@x=pass,setup@y=pass,use@x=pass,use@y=pass,only-y@y=pass,bad@x=error,after-bad@x=skip,after-bad@y=skip"
	if strings.Join(got, ",") != want {
		t.Errorf("rows\n got %s\nwant %s", strings.Join(got, ","), want)
	}
	if got := run.Suites[0].Target; got != "x, y" {
		t.Errorf("suite target %q, want the matrix", got)
	}
	// Dependencies are per target: use@y waits for setup@y.
	if a, b := tg.index("end setup@y"), tg.index("start use@y"); a < 0 || a > b {
		t.Errorf("use@y started before setup@y ended: %v", tg.events)
	}
	last := run.Suites[0].Tests[7]
	if !strings.Contains(last.Error, "bad: does not run on target y") {
		t.Errorf("after-bad@y error %q", last.Error)
	}

	// A --target flag overrides the matrix: one run per test.
	cfg := orderCfg(&orderTarget{}, 4)
	cfg.SingleTarget = true
	run, err = Run(t.Context(), []*suite.Suite{s}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The suite names the target its tests ran on, not its matrix.
	if n := len(run.Suites[0].Tests); n != 5 || run.Suites[0].Tests[0].Matrix || run.Suites[0].Target != "default" {
		t.Errorf("single target: %d rows, matrix %v, suite target %q", n, run.Suites[0].Tests[0].Matrix, run.Suites[0].Target)
	}
}

func TestMatrixTargetsRunConcurrently(t *testing.T) {
	t.Parallel()
	s := depSuite(depSpec{id: "only", score: 1})
	s.Matrix = []*suite.MatrixTarget{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	tg := &fakeTarget{delay: 200 * time.Millisecond}
	if _, err := Run(t.Context(), []*suite.Suite{s}, cfgFor(tg, 3)); err != nil {
		t.Fatal(err)
	}
	if tg.maxSeen.Load() < 2 {
		t.Errorf("matrix targets ran one at a time (max in flight %d)", tg.maxSeen.Load())
	}
}

func TestWavesSurviveACycle(t *testing.T) {
	t.Parallel()
	// Loading rejects cycles; the engine must still finish if handed one.
	s := depSuite(depSpec{id: "a", score: 1, deps: []string{"b"}}, depSpec{id: "b", score: 1, deps: []string{"a"}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		run, err := Run(t.Context(), []*suite.Suite{s}, orderCfg(&orderTarget{}, 2))
		if err != nil {
			t.Error(err)
			return
		}
		for _, tr := range run.Suites[0].Tests {
			if tr.Verdict == result.Pass {
				t.Errorf("%s passed on a dependency cycle", tr.ID)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not finish on a dependency cycle")
	}
}

func TestCancelledMatrixRowsKeepTheirTarget(t *testing.T) {
	t.Parallel()
	// A run cancelled before it starts leaves every row unfinished: each must still say which
	// matrix target it is for, or the two rows of a test share one label.
	s := depSuite(depSpec{id: "a", score: 1})
	s.Matrix = []*suite.MatrixTarget{{Name: "x"}, {Name: "y"}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	run, _ := Run(ctx, []*suite.Suite{s}, orderCfg(&orderTarget{}, 1))
	var got []string
	for _, tr := range run.Suites[0].Tests {
		got = append(got, tr.Label()+"="+string(tr.Verdict))
	}
	if want := "a@x=skip,a@y=skip"; strings.Join(got, ",") != want {
		t.Errorf("rows %s, want %s", strings.Join(got, ","), want)
	}
}
