package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/google/go-cmp/cmp"
)

// fakeTarget answers with the test id after a delay, or fails for ids starting with "bad".
type fakeTarget struct {
	delay    time.Duration
	inFlight atomic.Int32
	maxSeen  atomic.Int32
}

func (f *fakeTarget) Run(ctx context.Context, req *target.Request) (*result.Output, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxSeen.Load()
		if n <= m || f.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(f.delay):
	}
	if strings.HasPrefix(req.Test.ID, "bad") {
		return nil, errors.New("agent exited with code 3")
	}
	return &result.Output{Answer: "answer for " + req.Test.ID}, nil
}

// scoreGrader scores what its spec's Value says.
type scoreGrader struct{ spec *suite.Grader }

func (g scoreGrader) Grade(_ context.Context, in *grader.Input) *result.GraderResult {
	s := g.spec.Value.(float64)
	v := result.Pass
	if s < 0.8 {
		v = result.Fail
	}
	if s < 0 {
		return &result.GraderResult{Name: g.spec.Name, Weight: 1, Verdict: result.Error, Error: "judge unavailable"}
	}
	return &result.GraderResult{Name: g.spec.Name, Score: s, Weight: g.spec.Weight, Verdict: v}
}

func mkSuite(name string, scores ...float64) *suite.Suite {
	s := &suite.Suite{Name: name, Path: "evals/" + name + ".eval.yaml"}
	for i, sc := range scores {
		id := fmt.Sprintf("t%02d", i)
		if sc < -1 {
			id = fmt.Sprintf("bad%02d", i)
		}
		s.Tests = append(s.Tests, &suite.Test{
			ID:      id,
			Input:   []suite.Message{{Role: "user", Content: "do " + id}},
			Graders: []*suite.Grader{{Name: "g", Type: "fake", Weight: 1, Value: sc}},
		})
	}
	return s
}

func cfgFor(tg target.Target, workers int) Config {
	return Config{
		Workers: workers,
		Target:  func(*suite.Suite, *suite.Test) (target.Target, string, error) { return tg, "fake", nil },
		Grader: func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
			return scoreGrader{spec: g}, nil
		},
	}
}

func TestRunOrderAndVerdicts(t *testing.T) {
	t.Parallel()
	tg := &fakeTarget{delay: 2 * time.Millisecond}
	suites := []*suite.Suite{mkSuite("a", 1, 0.7, 0.5, -1, -2), mkSuite("b", 0.9)}
	run, err := Run(t.Context(), suites, cfgFor(tg, 3))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]result.Verdict{{result.Pass, result.Borderline, result.Fail, result.Error, result.Error}, {result.Pass}}
	for i, sr := range run.Suites {
		for j, tr := range sr.Tests {
			if tr.Verdict != want[i][j] {
				t.Errorf("%s/%s: verdict %s, want %s (%s)", sr.Name, tr.ID, tr.Verdict, want[i][j], tr.Error)
			}
		}
	}
	bad := run.Suites[0].Tests[4]
	if bad.ID != "bad04" || bad.FailureStage != result.StageAgent || !strings.Contains(bad.Error, "code 3") || len(bad.Graders) != 0 {
		t.Errorf("agent failure: %+v", bad)
	}
	if run.Summary.Total != 6 || run.Summary.Errors != 2 || run.Summary.Verdict != result.Error {
		t.Errorf("summary: %+v", run.Summary)
	}
	if run.Suites[1].Summary.Verdict != result.Pass {
		t.Errorf("suite b: %+v", run.Suites[1].Summary)
	}
}

func TestRunBoundsConcurrency(t *testing.T) {
	t.Parallel()
	tg := &fakeTarget{delay: 10 * time.Millisecond}
	scores := make([]float64, 24)
	for i := range scores {
		scores[i] = 1
	}
	if _, err := Run(t.Context(), []*suite.Suite{mkSuite("a", scores...)}, cfgFor(tg, 4)); err != nil {
		t.Fatal(err)
	}
	if got := tg.maxSeen.Load(); got > 4 || got < 2 {
		t.Fatalf("max in flight = %d, want 2..4", got)
	}
}

func TestRunTimeoutIsAnError(t *testing.T) {
	t.Parallel()
	cfg := cfgFor(&fakeTarget{delay: time.Minute}, 2)
	cfg.Timeout = 20 * time.Millisecond
	run, err := Run(t.Context(), []*suite.Suite{mkSuite("a", 1)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := run.Suites[0].Tests[0]
	if tr.Verdict != result.Error || !strings.Contains(tr.Error, "timed out") {
		t.Fatalf("got %s %q", tr.Verdict, tr.Error)
	}
}

func TestRunCancelMarksRestSkipped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	cfg := cfgFor(&fakeTarget{delay: 5 * time.Millisecond}, 1)
	cfg.Grader = func(_ *suite.Suite, _ *suite.Test, g *suite.Grader) (grader.Grader, error) {
		once.Do(cancel) // the first test finishes; the rest are never dispatched
		return scoreGrader{spec: g}, nil
	}
	run, err := Run(ctx, []*suite.Suite{mkSuite("a", 1, 1, 1, 1)}, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	skipped := 0
	for _, tr := range run.Suites[0].Tests {
		if tr == nil {
			t.Fatal("nil result")
		}
		if tr.Verdict == result.Skip {
			skipped++
		}
		if tr.Verdict == result.Pass && tr.Error != "" {
			t.Fatalf("pass with error: %+v", tr)
		}
	}
	if skipped < 2 {
		t.Fatalf("skipped = %d, want most tests skipped", skipped)
	}
}

func TestRunSetupErrors(t *testing.T) {
	t.Parallel()
	cfg := cfgFor(&fakeTarget{}, 1)
	cfg.Target = func(*suite.Suite, *suite.Test) (target.Target, string, error) {
		return nil, "nope", errors.New("unknown target nope")
	}
	cfg.LoadErrors = []*result.SuiteResult{{Name: "broken", Path: "evals/broken.eval.yaml", Error: "evals/broken.eval.yaml:3:1: bad"}}
	run, err := Run(t.Context(), []*suite.Suite{mkSuite("a", 1)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := run.Suites[0].Tests[0]
	if tr.Verdict != result.Error || tr.FailureStage != result.StageSetup {
		t.Fatalf("target resolution: %+v", tr)
	}
	if len(run.Suites) != 2 || run.Suites[1].Summary.Verdict != result.Error || run.Summary.Verdict != result.Error {
		t.Fatalf("load error not reported: %+v", run.Summary)
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	cfg := cfgFor(&fakeTarget{}, 1)
	cfg.Progress = &b
	cfg.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(400 * time.Millisecond)
		return clock
	}
	if _, err := Run(t.Context(), []*suite.Suite{mkSuite("a", 1, 0.5, 1)}, cfg); err != nil {
		t.Fatal(err)
	}
	// One line a test, in order (one worker), each timed by the fake clock; never the answer.
	want := "[1/3] a/t00 pass 1.00 (0.4s)\n[2/3] a/t01 fail 0.50 (0.4s)\n[3/3] a/t02 pass 1.00 (0.4s)\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Fatalf("progress (-want +got):\n%s", diff)
	}
}

// fakeWorkspace is a workspace with nothing in it; done runs when it is closed.
type fakeWorkspace struct{ done func() }

func (fakeWorkspace) Dir() string                          { return "" }
func (fakeWorkspace) Diff(context.Context) (string, error) { return "", nil }
func (w *fakeWorkspace) Close(bool) (string, error) {
	w.done()
	return "", nil
}

func TestSharedWorkspaceTestsRunInFileOrder(t *testing.T) {
	t.Parallel()
	shared := &suite.Workspace{Template: "ws", Isolation: "shared"}
	s := &suite.Suite{Name: "s", Workspace: shared}
	for i := range 12 {
		s.Tests = append(s.Tests, &suite.Test{ID: fmt.Sprintf("t%02d", i), Graders: []*suite.Grader{{Name: "g", Type: "fake", Weight: 1, Value: 1.0}}})
	}
	own := &suite.Test{ID: "own", Workspace: &suite.Workspace{Template: "other"}, Graders: []*suite.Grader{{Name: "g", Type: "fake", Weight: 1, Value: 1.0}}}
	s.Tests = append(s.Tests, own)
	var mu sync.Mutex
	var order []string
	var inFlight, peak atomic.Int32
	cfg := cfgFor(&fakeTarget{}, 8)
	cfg.Workspace = func(_ context.Context, _ *suite.Suite, t *suite.Test, ws *suite.Workspace) (Workspace, error) {
		if ws == shared {
			n := inFlight.Add(1)
			if n > peak.Load() {
				peak.Store(n)
			}
			mu.Lock()
			order = append(order, t.ID)
			mu.Unlock()
			time.Sleep(time.Millisecond)
		}
		return &fakeWorkspace{done: func() {
			if ws == shared {
				inFlight.Add(-1)
			}
		}}, nil
	}
	run, err := Run(t.Context(), []*suite.Suite{s}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 1 {
		t.Errorf("%d shared-workspace tests ran at once", peak.Load())
	}
	for i, id := range order {
		if want := fmt.Sprintf("t%02d", i); id != want {
			t.Fatalf("order %v: shared tests must run in file order", order)
		}
	}
	if run.Summary.Total != 13 {
		t.Errorf("total %d", run.Summary.Total)
	}
}

// syncBuffer is a strings.Builder safe for the heartbeat goroutine and the workers.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// blockingTarget runs until release is closed, except for tests named "quick".
type blockingTarget struct{ release chan struct{} }

func (b blockingTarget) Run(ctx context.Context, req *target.Request) (*result.Output, error) {
	if req.Test.ID != "quick" {
		select {
		case <-b.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &result.Output{Answer: "done"}, nil
}

func TestHeartbeatNamesLongTests(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	tg := blockingTarget{release: make(chan struct{})}
	cfg := cfgFor(tg, 4)
	cfg.Progress = &out
	cfg.Heartbeat = 5 * time.Millisecond
	s := mkSuite("long", 1, 1)
	s.Tests[0].ID = "slow\n::error::forged"
	s.Tests = append(s.Tests, &suite.Test{ID: "quick", Graders: []*suite.Grader{{Name: "g", Type: "fake", Weight: 1, Value: 1.0}}})
	done := make(chan error)
	go func() {
		_, err := Run(t.Context(), []*suite.Suite{s}, cfg)
		done <- err
	}()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(out.String(), "1/3 done; still running: ") {
		select {
		case <-deadline:
			t.Fatalf("no heartbeat naming the running tests:\n%s", out.String())
		case <-time.After(time.Millisecond):
		}
	}
	close(tg.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	beat := got[strings.Index(got, "evalgate: 1/3 done"):]
	beat = beat[:strings.Index(beat, "\n")]
	for _, w := range []string{`long/slow\n::error::forged (`, "long/t01 ("} {
		if !strings.Contains(beat, w) {
			t.Errorf("heartbeat %q lacks %q", beat, w)
		}
	}
	if strings.Contains(got, "\n::error") || strings.Contains(beat, "quick") {
		t.Errorf("a test id's line break reached the log, or a finished test was named:\n%s", got)
	}
	n := strings.Count(got, "still running")
	time.Sleep(20 * time.Millisecond)
	if strings.Count(out.String(), "still running") != n {
		t.Error("the heartbeat went on after Run returned")
	}
}

func TestHeartbeatOff(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	cfg := cfgFor(&fakeTarget{delay: 30 * time.Millisecond}, 1)
	cfg.Progress = &out
	cfg.Heartbeat = -1
	if _, err := Run(t.Context(), []*suite.Suite{mkSuite("a", 1)}, cfg); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "still running") {
		t.Errorf("a negative Heartbeat must turn it off:\n%s", out.String())
	}
}

// TestRunRecordsUnselected: the suites the selection left out are on the run as given.
func TestRunRecordsUnselected(t *testing.T) {
	t.Parallel()
	cfg := cfgFor(&fakeTarget{}, 1)
	cfg.Unselected = []result.Unselected{{Path: "evals/other.eval.yaml", Why: "not touched"}}
	run, err := Run(t.Context(), []*suite.Suite{mkSuite("a", 1)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Unselected) != 1 || run.Unselected[0] != cfg.Unselected[0] {
		t.Errorf("run.Unselected = %+v, want %+v", run.Unselected, cfg.Unselected)
	}
}

// panicTarget panics: a bug in a target must cost its test, not the run.
type panicTarget struct{}

func (panicTarget) Run(context.Context, *target.Request) (*result.Output, error) {
	panic("index out of range")
}

// TestRunPanicIsTheTestsError: a panic while one test runs makes that test an error; the
// other tests still run and the run is returned.
func TestRunPanicIsTheTestsError(t *testing.T) {
	t.Parallel()
	cfg := cfgFor(nil, 2)
	cfg.Target = func(_ *suite.Suite, tt *suite.Test) (target.Target, string, error) {
		if tt.ID == "t00" {
			return &fakeTarget{}, "fake", nil
		}
		return panicTarget{}, "panics", nil
	}
	s := mkSuite("a", 1)
	s.Tests = append(s.Tests, &suite.Test{ID: "boom", Graders: s.Tests[0].Graders})
	run, err := Run(t.Context(), []*suite.Suite{s}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ok, boom := run.Suites[0].Tests[0], run.Suites[0].Tests[1]
	if ok.Verdict != result.Pass || boom.Verdict != result.Error || !strings.Contains(boom.Error, "panic: index out of range") {
		t.Errorf("ok %s, boom %s (%s); want pass and an error naming the panic", ok.Verdict, boom.Verdict, boom.Error)
	}
}
