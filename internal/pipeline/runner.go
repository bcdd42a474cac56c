package pipeline

import (
	"context"
	"io"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/reports"
)

// Config is what a run's flags, or the action's inputs, say about how to load, wire and run
// suites. It is plain data: New builds the one Runner from it.
type Config struct {
	// Where targets and judges come from: the root, the --targets, --target and --judge
	// overrides, the environment, the model options, the log (diagnostics, warnings and
	// progress) and who hears the secrets targets files interpolate. Its CheckTargets is
	// set by a Job's Fork.
	resolve.Config
	// Scrub, when not nil, is applied to the finished run before anything renders it: a
	// renderer's escaping would hide a secret from a scrub of its output.
	Scrub *redact.Redactor
	// User is who agents, hooks and graders run as (nil = evalgate's own user).
	User *proc.User

	// How the engine runs the tests (see engine.Config).
	Workers         int
	Timeout         time.Duration
	Thresholds      result.Thresholds
	BudgetUSD       float64
	Trials          int
	MaxTrials       int
	RegressionAlpha float64
	KeepWorkspaces  bool
	// DiffDir is where the diffs of failed tests are kept ("" = nowhere; a relative path is
	// relative to the working directory).
	DiffDir string
}

// Thresholds are the verdict bands --threshold and --borderline ask for: pass 0 keeps the
// default pass threshold, and the borderline threshold is never above the pass threshold.
func Thresholds(pass, borderline float64) result.Thresholds {
	th := result.DefaultThresholds
	if pass > 0 {
		th.Pass = pass
	}
	th.Borderline = min(borderline, th.Pass)
	return th
}

// Job is what one Run runs, and the labels the run records as it is built.
type Job struct {
	Suites     []*suite.Suite
	LoadErrors []*result.SuiteResult
	// Check are the suites whose configuration (targets, judges, keys) is checked before
	// anything runs; nil means Suites. A shard checks the whole selection.
	Check []*suite.Suite
	// Context says where the run happens; Why why each suite was selected, by path; Shard
	// which shard of a matrix this is ("i/n", "" when unsharded).
	Context *result.Context
	Why     map[string]string
	Shard   string
	// Unselected are the suites the selection left out, with why.
	Unselected []result.Unselected
	// Baseline is the base run adaptive trials compare each test with (nil: none).
	Baseline *result.Run
	// Fork, when not nil, says that a stranger's code runs with the job's secrets.
	Fork *Fork
}

// Fork is what a run must hold to when a fork's code runs with the job's secrets: the reply
// cache is off (the fork must neither read the repository's cached replies nor leave replies
// for its runs), vendor keys go only where AllowHost lets them, and every targets file passes
// CheckTargets. The policy itself is the action's (it knows the event and the base branch).
type Fork struct {
	AllowHost    func(host, apiKey string) error
	CheckTargets func(*suite.TargetsFile) error
}

// Runner is the one run assembly of both drivers: it loads eval files, resolves and caches
// targets and judges, checks the configuration before any model is called, builds the
// engine's configuration, runs and cleans up.
type Runner struct {
	cfg Config
}

// New returns the Runner of cfg. A nil Log prints nothing.
func New(cfg Config) *Runner {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	return &Runner{cfg: cfg}
}

// Load discovers the eval files under the root matching patterns (nil = the defaults) and
// loads them: a file that cannot be loaded is a suite result with its error.
func (r *Runner) Load(patterns []string) ([]*suite.Suite, []*result.SuiteResult, error) {
	if len(patterns) == 0 {
		patterns = suite.DefaultPatterns
	}
	files, err := suite.Discover([]string{r.cfg.Root}, patterns)
	if err != nil {
		return nil, nil, err
	}
	l := r.loadFiles(files)
	return l.Suites, l.LoadErrors, nil
}

// TargetsFiles lists the targets files the suites use, each once.
func (r *Runner) TargetsFiles(suites []*suite.Suite) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range suites {
		if p := r.cfg.TargetsPath(s); p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// check is the preflight for validate: every configuration problem of the suites as a
// diagnostic, and how many warnings it printed. Nothing is run.
func (r *Runner) check(suites []*suite.Suite) (ConfigErrors, int) {
	w := newWiring(r.cfg, nil)
	c := w.checkAll(suites)
	return c.diags, c.warnings + w.res.Warned()
}

// Validate is validate's preflight of what Search loaded: the configuration of the suites
// filter selects and, when it selects everything, the targets file of each eval file that
// could not be loaded (fixing the one should not reveal the other's mistakes only then). It
// returns every problem and how many warnings it printed; nothing is run.
func (r *Runner) Validate(l *Loaded, filter *Filter) (ConfigErrors, int, error) {
	checked, err := filter.Apply(l.Suites)
	if err != nil {
		return nil, 0, err
	}
	if !filter.active() {
		for _, f := range l.failed {
			checked = append(checked, &suite.Suite{Path: f})
		}
	}
	diags, warnings := r.check(checked)
	return diags, warnings, nil
}

// Run checks the configuration of the job's suites (a ConfigErrors names every mistake, and
// nothing runs), runs them and returns the run, scrubbed. Shared workspaces are closed, and
// their after_all hooks run, before it returns, even when ctx was cancelled.
func (r *Runner) Run(ctx context.Context, job Job) (*result.Run, error) {
	w := newWiring(r.cfg, job.Fork)
	defer w.closeWorkspaces(context.WithoutCancel(ctx))
	protectCheckout(r.cfg.Root, r.cfg.User, r.cfg.Log)
	check := job.Check
	if check == nil {
		check = job.Suites
	}
	plan, err := w.preflight(check)
	if err != nil {
		return nil, err
	}
	unpin, err := w.pinGraders(job.Suites)
	if err != nil {
		return nil, err
	}
	defer unpin()
	printStart(r.cfg.Log, job.Suites, r.cfg.Workers, r.cfg.Trials, r.cfg.MaxTrials, plan)
	run, err := engine.Run(ctx, job.Suites, r.engineConfig(w, job))
	if r.cfg.Scrub != nil {
		r.cfg.Scrub.Value(run)
	}
	return run, err
}

// engineConfig is the one place a run's engine.Config is built.
func (r *Runner) engineConfig(w *wiring, job Job) engine.Config {
	c := r.cfg
	var keepDiff func(suite, test, diff string) (string, error)
	if c.DiffDir != "" {
		keepDiff = reports.DiffFiles(c.DiffDir, c.Root, c.Scrub)
	}
	return engine.Config{
		Workers:         c.Workers,
		Timeout:         c.Timeout,
		Thresholds:      c.Thresholds,
		BudgetUSD:       c.BudgetUSD,
		Trials:          c.Trials,
		MaxTrials:       c.MaxTrials,
		RegressionAlpha: c.RegressionAlpha,
		KeepWorkspaces:  c.KeepWorkspaces,
		KeepDiff:        keepDiff,
		Baseline:        engine.BaseOutcomes(job.Baseline),
		SingleTarget:    c.Target != "",
		Target:          w.res.TargetFor,
		Grader:          w.grader,
		Workspace:       w.workspace,
		Progress:        c.Log,
		User:            c.User,
		LoadErrors:      job.LoadErrors,
		Context:         job.Context,
		Why:             job.Why,
		Shard:           job.Shard,
		Unselected:      job.Unselected,
	}
}
