package grader

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// custom runs a custom assertion type, a module found by the loader in .agentv/assertions
// (or .agentv/graders, .agentv/judges), as AgentV does: as a code grader whose command runs
// the module, which reads the test from stdin and prints its result (defineAssertion from
// @agentv/sdk does both). AgentV runs every module with "bun run"; without bun, evalgate
// runs a JavaScript module with node, and reports a TypeScript one as needing bun — never a
// pass.
type custom struct {
	spec    *suite.Grader
	timeout time.Duration
	// lookPath finds a runtime on PATH (exec.LookPath; tests replace it).
	lookPath func(string) (string, error)
	scripts  *Pristine
}

func newCustom(spec *suite.Grader, deps Deps) (Grader, error) {
	timeout, err := codeTimeout(spec)
	if err != nil {
		return nil, err
	}
	return custom{spec: spec, timeout: timeout, lookPath: exec.LookPath, scripts: deps.Scripts}, nil
}

func (g custom) Grade(ctx context.Context, in *Input) *result.GraderResult {
	argv, err := g.command()
	if err != nil {
		return errorResult(g.spec, err.Error())
	}
	run := *g.spec
	run.Command = argv
	// The project the module belongs to (the directory holding .agentv), where its
	// package.json and node_modules usually are.
	run.Cwd = filepath.Dir(filepath.Dir(filepath.Dir(g.spec.Custom)))
	return code{spec: &run, timeout: g.timeout, module: true, scripts: g.scripts}.Grade(ctx, in)
}

// command is the argv that runs the module: bun run as in AgentV, or node for JavaScript
// when bun is missing.
func (g custom) command() ([]string, error) {
	module := g.spec.Custom
	if _, err := g.lookPath("bun"); err == nil {
		return []string{"bun", "run", module}, nil
	}
	switch strings.ToLower(filepath.Ext(module)) {
	case ".js", ".mjs":
		if _, err := g.lookPath("node"); err == nil {
			return []string{"node", module}, nil
		}
		return nil, fmt.Errorf("custom assertion %s needs bun or node (neither found on PATH) to run %s", g.spec.Type, filepath.Base(module))
	}
	return nil, fmt.Errorf("custom assertion %s needs bun (not found on PATH): %s is TypeScript, which AgentV runs with \"bun run\"; install bun, or write the assertion as .mjs to run it with node",
		g.spec.Type, filepath.Base(module))
}
