// Package engine runs loaded suites: every test of every suite goes through one bounded
// worker pool, its target is run under a per-test timeout, its graders grade the output, and
// package rubric turns the grader results into the test's score and verdict.
//
// A test that cannot be run or graded is data (an error result), never a returned error: Run
// returns an error only when the run itself was cut short (the context was cancelled, or an
// unreachable endpoint stopped it).
package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

// Defaults for Config fields left zero.
const (
	DefaultWorkers = 4
	DefaultTimeout = 10 * time.Minute
	// defaultHeartbeat is how often a run reports the tests still running.
	defaultHeartbeat = 30 * time.Second
)

// Config says how to run suites and where their targets and graders come from.
type Config struct {
	Workers    int
	Timeout    time.Duration // per test, target and graders together
	Thresholds result.Thresholds
	// Target resolves the target of one test and its name.
	Target func(s *suite.Suite, t *suite.Test) (target.Target, string, error)
	// Grader builds one grader of one test.
	Grader func(s *suite.Suite, t *suite.Test, g *suite.Grader) (grader.Grader, error)
	// Progress receives one line per finished test once the run has lasted a second, and a
	// heartbeat naming the tests still running; nil = none.
	Progress io.Writer
	// Heartbeat is how often the heartbeat is written (0 = defaultHeartbeat, < 0 = never).
	Heartbeat time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// LoadErrors are suites that could not be loaded; they are reported with the run.
	LoadErrors []*result.SuiteResult
	// Workspace prepares the scratch directory of a test that declares a workspace; nil means
	// such tests fail at setup rather than run somewhere unintended.
	Workspace func(ctx context.Context, s *suite.Suite, t *suite.Test, ws *suite.Workspace) (Workspace, error)
	// BudgetUSD stops dispatching new tests once the run has spent this much (target and
	// judge together); tests already running finish. 0 = no limit.
	BudgetUSD float64
	// KeepWorkspaces keeps every test's workspace, not only those of tests that did not pass.
	KeepWorkspaces bool
	// SingleTarget ignores execution.targets matrices: every test runs once, on the target
	// Target resolves (a --target flag overrides the matrix, as in AgentV).
	SingleTarget bool
	// Trials, when > 0, overrides every suite's execution.trials.count (--trials).
	Trials int
	// MaxTrials, when > 0, overrides every suite's execution.trials.max (--max-trials): above
	// a suite's count, its tests run adaptive trials (adaptive.go).
	MaxTrials int
	// Baseline is the base run's trial outcomes per test (BaseOutcomes): adaptive trials
	// compare a test's head trials with them. nil = no baseline; a test missing from it is
	// compared with the pass threshold instead.
	Baseline map[BaseKey][]bool
	// RegressionAlpha is the family-wise level of adaptive trials' regression tests, shared
	// among the run's tests that have a base (Bonferroni); 0 = defaultRegressionAlpha.
	RegressionAlpha float64
	// Context, Shard and Why label the run: where it happened, which shard of a matrix it is
	// ("i/n"), and why each suite was selected, by path. The engine records them when it
	// builds the run, so nothing edits a run after the engine.
	Context *result.Context
	Shard   string
	Why     map[string]string
	// Unselected are the suites the selection left out, recorded on the run as they are.
	Unselected []result.Unselected
	// KeepDiff, when set, stores the whole diff of a test whose result keeps only the first
	// result.MaxFileChangesBytes of it, and says where (named in the result); nil drops the rest.
	KeepDiff func(suite, test, diff string) (string, error)
	// User is who agents and grader commands run as (nil = evalgate's own user); the wiring
	// decides it once for the run.
	User *proc.User
}

// Workspace is a prepared scratch directory for one test.
type Workspace interface {
	Dir() string
	// Diff is what changed since the workspace was prepared, as a unified diff.
	Diff(ctx context.Context) (string, error)
	// Close removes the directory unless keep; it returns the kept path.
	Close(keep bool) (string, error)
}

// Run runs every test of the suites and returns the results in suite and test order (a test
// of an execution.targets matrix once per target, in matrix order). Tests run in waves: a
// test that depends_on others runs in a wave after theirs (see schedule.go). When ctx is
// cancelled, unfinished tests are marked skipped and the partial run is returned with ctx's
// error. When a test meets a model endpoint that cannot be reached, no further test starts:
// they are skipped as not run, and the run is returned with a *StoppedError.
func Run(ctx context.Context, suites []*suite.Suite, cfg Config) (*result.Run, error) {
	cfg = withDefaults(cfg)
	run := &result.Run{SchemaVersion: result.SchemaVersion, StartedAt: cfg.Now(), Thresholds: cfg.Thresholds, Context: cfg.Context, Shard: cfg.Shard, Unselected: cfg.Unselected}
	var all []*job
	for _, s := range suites {
		jobs := plan(s, cfg.SingleTarget)
		sr := &result.SuiteResult{Name: s.Name, Path: s.Path, Format: string(s.Format), Target: suiteTarget(s, cfg.SingleTarget), Why: cfg.Why[s.Path], Tests: make([]*result.TestResult, len(jobs))}
		run.Suites = append(run.Suites, sr)
		for i, j := range jobs {
			j.out = &sr.Tests[i]
		}
		all = append(all, jobs...)
	}
	p := newProgress(cfg, len(all))
	defer p.beat(ctx, cfg.Heartbeat)()
	b := &budget{limit: cfg.BudgetUSD}
	stop := &abort{}
	ad := newAdaptive(cfg, all)
	for _, wave := range waves(all) {
		if ctx.Err() != nil {
			break
		}
		runWave(ctx, cfg, wave, p, b, stop, ad)
	}
	for _, j := range all {
		if *j.out == nil {
			tr := j.skipped("cancelled")
			j.matrixLabel(tr)
			*j.out = tr
		}
	}
	for i, s := range suites {
		if cfg.SingleTarget || len(s.Matrix) == 0 {
			run.Suites[i].Target = ranOn(run.Suites[i], run.Suites[i].Target)
		}
	}
	for _, le := range cfg.LoadErrors {
		// A copy: the caller's load errors are not edited.
		cp := *le
		if why, ok := cfg.Why[le.Path]; ok {
			cp.Why = why
		}
		run.Suites = append(run.Suites, &cp)
	}
	run.Budget = b.report()
	run.FinishedAt = cfg.Now()
	rubric.SummarizeRun(run)
	if err := ctx.Err(); err != nil {
		return run, err
	}
	return run, stop.err()
}

// interruptedResult is what a test the run's cancellation cut short records: skipped, with
// how long it had run, never an error.
func interruptedResult(j *job, tr *result.TestResult) *result.TestResult {
	out := j.skipped("cancelled: the run was interrupted while this test ran")
	out.DurationMS = tr.DurationMS
	return out
}

// runWave runs one wave's tests through the worker pool and returns when all are done.
func runWave(ctx context.Context, cfg Config, wave []*job, p *progress, b *budget, stop *abort, ad *adaptive) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Workers)
	for _, l := range lanes(wave) {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			for _, j := range l {
				if gctx.Err() != nil {
					return nil
				}
				var tr *result.TestResult
				if why, stopped := stop.skip(); stopped {
					tr = j.skipped(why)
				} else if why, over := b.over(); over {
					tr = j.skipped(why)
				} else if tr = j.blocked(); tr == nil {
					p.started(j.s, j.t)
					th := rubric.ForTest(cfg.Thresholds, j.s.Threshold, j.t.Threshold)
					tr = guarded(j, func() *result.TestResult {
						return runTrials(gctx, cfg, j.s, j.t, b, stop, ad.start(trialsOf(cfg, j.s), j.key(), th.Pass))
					})
					if tr.Verdict == result.Error && ctx.Err() != nil {
						// Interrupted, not broken: "context canceled" says nothing of the agent.
						tr = interruptedResult(j, tr)
					}
				}
				j.matrixLabel(tr)
				*j.out = tr
				p.done(j.s, j.t, tr)
			}
			return nil
		})
	}
	_ = g.Wait() // workers never return errors: failures are results
}

// guarded runs one test, turning a panic in it (a bug of evalgate's in a target, grader or
// judge) into that test's error: a panic on a worker would end the process before the check
// run, the comment and the outputs are written, and leave the other tests' results unreported.
func guarded(j *job, run func() *result.TestResult) (tr *result.TestResult) {
	defer func() {
		if v := recover(); v != nil {
			tr = newResult(j.s, j.t)
			tr.Verdict, tr.Target = result.Error, j.target
			tr.Error = fmt.Sprintf("internal error (a bug in evalgate; please report it): panic: %v", v)
		}
	}()
	return run()
}

// lanes groups jobs that must run one after another. Tests sharing a workspace (isolation:
// shared) see each other's changes, so they run in file order, one lane per workspace and
// matrix target (each target gets a workspace of its own, as in AgentV); every other test is
// a lane of its own and runs whenever a worker is free.
func lanes(jobs []*job) [][]*job {
	type key struct {
		ws     *suite.Workspace
		target string
	}
	var out [][]*job
	shared := map[key]int{}
	for _, j := range jobs {
		ws := workspaceOf(j.s, j.t)
		if ws == nil || ws.Isolation != "shared" {
			out = append(out, []*job{j})
			continue
		}
		k := key{ws, j.target}
		i, ok := shared[k]
		if !ok {
			i = len(out)
			shared[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], j)
	}
	return out
}

func withDefaults(cfg Config) Config {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Thresholds == (result.Thresholds{}) {
		cfg.Thresholds = result.DefaultThresholds
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = defaultHeartbeat
	}
	return cfg
}

func newResult(s *suite.Suite, t *suite.Test) *result.TestResult {
	return &result.TestResult{Suite: s.Name, ID: t.ID, Criteria: t.Criteria, File: t.Pos.File, Line: t.Pos.Line}
}
