package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/evalgate/evalgate/internal/engine"
	"github.com/evalgate/evalgate/internal/grader"
	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/workspace"
)

// wiring is what one run hands the engine: its targets and judges (a resolve.Resolver), its
// graders, built over the pristine copy of their scripts, and its workspaces. The engine
// calls it from many goroutines.
type wiring struct {
	Config
	// runID is the eval_run_id workspace hooks receive.
	runID string
	// scripts is evalgate's copy of the graders' scripts (pinGraders), nil until taken.
	scripts *grader.Pristine

	// res resolves and builds the run's targets and judges.
	res *resolve.Resolver

	mu       sync.Mutex
	managers map[wsKey]*workspace.Manager
}

// runID names a run for workspace hooks, as AgentV's eval_run_id: a UTC timestamp.
func runID(now time.Time) string {
	return now.UTC().Format("20060102T150405.000Z")
}

// newWiring is the wiring of one run; with fork, the reply cache is off, vendor keys go only
// where fork.AllowHost lets them and every targets file passes fork.CheckTargets.
func newWiring(c Config, fork *Fork) *wiring {
	if fork != nil {
		c.LLM.Cache = nil
		c.LLM.AllowHost = fork.AllowHost
		c.CheckTargets = fork.CheckTargets
	}
	return &wiring{Config: c, runID: runID(time.Now()), res: resolve.NewResolver(c.Config), managers: map[wsKey]*workspace.Manager{}}
}

// grader builds one grader of a test, with judges resolved by precedence
// --judge > the grader's target > the test target's grader_target > the target itself.
func (w *wiring) grader(s *suite.Suite, t *suite.Test, g *suite.Grader) (grader.Grader, error) {
	return grader.New(g, grader.Deps{Scripts: w.scripts, Judge: func(override string) (*judge.Judge, error) {
		return w.res.JudgeFor(s, t, override, g.Pos)
	}})
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
		if err := m.Close(ctx); err != nil {
			fmt.Fprintf(w.Log, "evalgate: warning: %v\n", err)
		}
	}
}
