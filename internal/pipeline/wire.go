package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/internal/workspace"
)

// wiring resolves targets and judges from targets.yaml files for one run. Each targets file,
// target and judge is built once and shared by every test that names it (the engine calls it
// from many goroutines).
type wiring struct {
	Config
	// fork, when not nil: a fork's code runs with the job's secrets (see Fork).
	fork *Fork
	// runID is the eval_run_id workspace hooks receive.
	runID string
	// scripts is evalgate's copy of the graders' scripts (pinGraders), nil until taken.
	scripts *grader.Pristine

	mu sync.Mutex
	// warned counts the targets files' warnings printed, for validate's tally.
	warned   int
	managers map[wsKey]*workspace.Manager
	files    map[string]*suite.TargetsFile
	targets  map[*suite.TargetConfig]target.Target
	judges   map[*suite.TargetConfig]*judge.Judge
}

// runID names a run for workspace hooks, as AgentV's eval_run_id: a UTC timestamp.
func runID(now func() time.Time) string {
	if now == nil {
		now = time.Now
	}
	return now().UTC().Format("20060102T150405.000Z")
}

// newWiring is the wiring of one run; with fork, the reply cache is off and vendor keys go
// only where fork.AllowHost lets them.
func newWiring(c Config, fork *Fork) *wiring {
	c.LLM.Getenv = c.Getenv
	if fork != nil {
		c.LLM.Cache = nil
		c.LLM.AllowHost = fork.AllowHost
	}
	return &wiring{Config: c, fork: fork, runID: runID(c.Now),
		managers: map[wsKey]*workspace.Manager{},
		files:    map[string]*suite.TargetsFile{}, targets: map[*suite.TargetConfig]target.Target{}, judges: map[*suite.TargetConfig]*judge.Judge{}}
}

// targetsFor loads (once) the targets file that applies to a suite.
func (w *wiring) targetsFor(s *suite.Suite) (*suite.TargetsFile, error) {
	path := w.targetsPath(s)
	if path == "" {
		return nil, &configError{pos: suite.Pos{File: s.Path}, env: true, msg: fmt.Sprintf(
			"no targets file: looked for targets.yaml, targets.yml, .agentv/targets.yaml and .agentv/targets.yml in %s and every directory above it up to %s (add .agentv/targets.yaml, or pass --targets FILE)",
			filepath.Dir(s.Path), w.Root)}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.files[path]; ok {
		return f, nil
	}
	// A targets file in the repository reads only files inside it; one named with --targets
	// outside the repository (the user's own choice) is confined to its own directory.
	abs, _ := filepath.Abs(path)
	root := w.Root
	if !fsroot.Within(w.Root, abs) {
		root = filepath.Dir(abs)
	}
	f, diags := suite.LoadTargetsWith(path, suite.LoadOptions{Root: root, Getenv: w.Getenv, Env: w.Env})
	if f != nil && w.OnSecrets != nil {
		// First: the diagnostics printed or returned below may name what it interpolated.
		w.OnSecrets(f.Secrets())
	}
	if root != w.Root {
		for i := range diags {
			if p := &diags[i].Pos; p.File != "" && !filepath.IsAbs(p.File) {
				p.File = rel(w.Root, filepath.Join(root, p.File))
			}
		}
	}
	if diags.HasErrors() && !(w.Lint && envGap(diags)) {
		return nil, diags
	}
	for _, d := range diags {
		if w.Log != nil {
			if d.Severity == suite.Error {
				// Only in lint mode: the environment's gaps, checked as far as they allow.
				d.Severity, d.Message = suite.Warning, d.Message+lintNote
			}
			w.warned++
			fmt.Fprintln(w.Log, d.String())
		}
	}
	if w.fork != nil && w.fork.CheckTargets != nil {
		if err := w.fork.CheckTargets(f); err != nil {
			return nil, err
		}
	}
	w.files[path] = f
	return f, nil
}

// targetsPath is the targets file that applies to a suite ("" = none found).
func (c *Config) targetsPath(s *suite.Suite) string {
	for _, p := range []string{c.Targets, s.TargetsFile} {
		if p != "" {
			return p
		}
	}
	return suite.FindTargets(s.Path, c.Root)
}

// target resolves the target a test runs against.
func (w *wiring) target(s *suite.Suite, t *suite.Test) (target.Target, string, error) {
	r := w.targetRef(s, t)
	cfg, err := w.resolve(s, r)
	if err != nil {
		return nil, r.Name, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if tg, ok := w.targets[cfg]; ok {
		return tg, r.Name, nil
	}
	tg, err := resolve.NewTarget(cfg, w.LLM)
	if err != nil {
		return nil, r.Name, w.cfgErr(cfg, err)
	}
	w.targets[cfg] = tg
	return tg, r.Name, nil
}

// grader builds one grader of a test, with judges resolved by precedence
// --judge > the grader's target > the test target's grader_target > the target itself.
func (w *wiring) grader(s *suite.Suite, t *suite.Test, g *suite.Grader) (grader.Grader, error) {
	return grader.New(g, grader.Deps{Scripts: w.scripts, Judge: func(override string) (*judge.Judge, error) {
		return w.judgeFor(s, t, override, g.Pos)
	}})
}

// judgeFor resolves (once per config) the judge of a grader; graderPos is where the grader
// is written, for messages about its target:.
func (w *wiring) judgeFor(s *suite.Suite, t *suite.Test, override string, graderPos suite.Pos) (*judge.Judge, error) {
	r, err := w.judgeRef(s, t, override, graderPos)
	if err != nil {
		return nil, err
	}
	cfg, err := w.resolve(s, r)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if j, ok := w.judges[cfg]; ok {
		return j, nil
	}
	j, err := resolve.NewJudge(cfg, w.LLM, w.JudgeSamples)
	if err != nil {
		return nil, w.cfgErr(cfg, err)
	}
	w.judges[cfg] = j
	return j, nil
}

// wsKey is a workspace spec and, for a run of a target matrix, the matrix target.
type wsKey struct {
	ws     *suite.Workspace
	target string
}

// workspace leases a test its workspace from the manager of its spec (one per spec, so
// before_all runs once and shared isolation is shared). Each target of a matrix has a manager
// of its own, as each AgentV matrix target is a run of its own: one target's tests never see
// another's changes.
func (w *wiring) workspace(ctx context.Context, s *suite.Suite, t *suite.Test, ws *suite.Workspace) (engine.Workspace, error) {
	k := wsKey{ws: ws}
	if w.Target == "" && s.MatrixEntry(t.Target) != nil {
		k.target = t.Target
	}
	w.mu.Lock()
	m, ok := w.managers[k]
	if !ok {
		m = workspace.NewManager(ws, workspace.ManagerOptions{RunID: w.runID, Log: w.Log, User: w.User})
		w.managers[k] = m
	}
	w.mu.Unlock()
	// Hooks get the input as AgentV gives it: its text (case_input), not the messages.
	return m.Acquire(ctx, t.ID, workspace.Question(t.Input), t.Metadata)
}

// closeWorkspaces runs after_all hooks and removes shared workspaces, once every test is done.
func (w *wiring) closeWorkspaces(ctx context.Context) {
	w.mu.Lock()
	managers := w.managers
	w.managers = map[wsKey]*workspace.Manager{}
	w.mu.Unlock()
	for _, m := range managers {
		if err := m.Close(ctx); err != nil && w.Log != nil {
			fmt.Fprintf(w.Log, "evalgate: warning: %v\n", err)
		}
	}
}
