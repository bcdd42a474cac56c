package suite

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
)

// testWorkspace merges a test's workspace over the suite's and checks the result; nil when the
// test writes none, so that the test runs in the suite's workspace (the engine shares a
// workspace between the tests that hold the same pointer).
func (r *reader) testWorkspace(s *Suite, t *Test, cw *Workspace) *Workspace {
	if cw == nil {
		return nil
	}
	if s.Workspace == nil {
		r.settleWorkspace(cw, nil, "")
		return cw
	}
	w := mergeWorkspace(s.Workspace, cw)
	r.settleWorkspace(w, cw, fmt.Sprintf("test %s (its workspace merged over the suite's): ", t.ID))
	return w
}

// mergeWorkspace is AgentV's mergeWorkspaceConfigs: every key the test writes replaces the
// suite's (template, isolation, repos, mode, path; repos are replaced, not appended), hooks
// merge stage by stage and key by key, and hooks default to the test's workspace file's
// directory, else the suite's, as AgentV's workspaceFileDir does. env, which AgentV checks for
// the suite only, is the suite's requirements and the test's. The result is a new value; suite
// and test are not changed.
func mergeWorkspace(suite, test *Workspace) *Workspace {
	if suite == nil {
		return test
	}
	if test == nil {
		return suite
	}
	w := &Workspace{Pos: test.Pos, set: maps.Clone(suite.set), dir: test.dir, fromFile: test.fromFile || suite.fromFile}
	if w.set == nil {
		w.set = map[string]Pos{}
	}
	// AgentV's workspaceFileDir is the test's ?? the suite's; inline hooks keep their own file's.
	hookDir := ""
	switch {
	case test.fromFile:
		hookDir = test.dir
	case suite.fromFile:
		w.dir, hookDir = suite.dir, suite.dir
	}
	// A key the test writes takes the test's position, so its diagnostics point there.
	maps.Copy(w.set, test.set)
	pick := func(key string) *Workspace {
		if _, ok := test.set[key]; ok {
			return test
		}
		return suite
	}
	w.Template = pick("template").Template
	// Written on neither side, it is evalgate's default, not what a static suite settled on;
	// settleWorkspace settles the merged value again.
	w.Isolation = "per_test"
	if _, ok := w.set["isolation"]; ok {
		w.Isolation = pick("isolation").Isolation
	}
	w.Repos = slices.Clone(pick("repos").Repos)
	// A path alone means static, as AgentV derives the mode, so it replaces the suite's mode.
	if _, ok := test.set["mode"]; ok || test.Path != "" {
		w.Mode = test.Mode
	} else {
		w.Mode = suite.Mode
	}
	w.Path = pick("path").Path
	w.Env = mergeEnv(suite.Env, test.Env, test.set)
	w.Hooks = mergeHooks(suite.Hooks, test.Hooks, hookDir)
	return w
}

// mergeHooks merges hooks as AgentV does: enabled is the test's when written, and each stage is
// the suite's hook with the test's keys over it.
func mergeHooks(suite, test WorkspaceHooks, dir string) WorkspaceHooks {
	h := WorkspaceHooks{Disabled: suite.Disabled, enabledSet: suite.enabledSet || test.enabledSet}
	if test.enabledSet {
		h.Disabled = test.Disabled
	}
	h.BeforeAll = mergeHook(suite.BeforeAll, test.BeforeAll, dir)
	h.BeforeEach = mergeHook(suite.BeforeEach, test.BeforeEach, dir)
	h.AfterEach = mergeHook(suite.AfterEach, test.AfterEach, dir)
	h.AfterAll = mergeHook(suite.AfterAll, test.AfterAll, dir)
	return h
}

// mergeHook is {...suite, ...test}: the keys the test's hook writes replace the suite's, the
// rest of the suite's hook stays. A cwd stays relative to the file it is written in (AgentV
// resolves it when it reads it); without one the hook runs in dir, or when dir is "" in the
// directory of the file the test's hook (else the suite's) is written in.
func mergeHook(suite, test *Hook, dir string) *Hook {
	if suite == nil && test == nil {
		return nil
	}
	h := &Hook{Dir: dir, set: map[string]bool{}}
	for _, side := range []*Hook{suite, test} {
		if side == nil {
			continue
		}
		h.Pos = side.Pos
		if dir == "" {
			h.Dir = side.Dir
		}
		if side.set["command"] {
			h.Command = slices.Clone(side.Command)
		}
		if side.set["timeout_ms"] {
			h.TimeoutMS = side.TimeoutMS
		}
		if side.set["cwd"] {
			h.Cwd = side.Cwd
			if !filepath.IsAbs(h.Cwd) {
				h.Cwd = filepath.Join(side.Dir, h.Cwd)
			}
		}
		if side.set["reset"] {
			h.Reset = side.Reset
		}
		maps.Copy(h.set, side.set)
	}
	return h
}

// mergeEnv is the suite's requirements followed by those the test adds.
func mergeEnv(suite, test WorkspaceEnv, testSet map[string]Pos) WorkspaceEnv {
	e := WorkspaceEnv{Pos: suite.Pos}
	if _, ok := testSet["env"]; ok {
		e.Pos = test.Pos
	}
	union := func(a, b []string) []string {
		out := slices.Clone(a)
		for _, s := range b {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	e.RequiredCommands = union(suite.RequiredCommands, test.RequiredCommands)
	e.RequiredPythonModules = union(suite.RequiredPythonModules, test.RequiredPythonModules)
	return e
}

// settleWorkspace checks how a workspace's keys fit together and derives what they imply (a
// static workspace is shared). For a merged workspace, test is what the test wrote: only the
// combinations a test's key takes part in are reported (the suite's own were reported with
// the suite), each prefixed with say and at the position of the key it names.
func (r *reader) settleWorkspace(w, test *Workspace, say string) {
	report := func(sev Severity, key string, involved []string, format string, args ...any) {
		if test != nil && !slices.ContainsFunc(involved, func(k string) bool { _, ok := test.set[k]; return ok }) {
			return
		}
		pos, ok := w.set[key]
		if !ok {
			pos = w.Pos
		}
		r.report(Diagnostic{Pos: pos, Severity: sev, Message: say + fmt.Sprintf(format, args...)})
	}
	r.checkHooks(w.Hooks, test)
	switch w.Mode {
	case "", "pooled", "temp", "static":
	default:
		return // reported where it is written
	}
	if w.Path != "" && w.Mode != "" && w.Mode != "static" {
		report(Error, "path", []string{"path", "mode"}, "workspace.path needs workspace.mode: static, not %s", w.Mode)
		return
	}
	if w.Mode != "static" && w.Path == "" {
		return
	}
	_, isoSet := w.set["isolation"]
	switch {
	case w.Path == "" && len(w.Repos) > 0:
		report(Error, "mode", []string{"mode", "path", "repos"}, "workspace.mode static needs workspace.path, the directory to use in place")
	case w.Path == "":
		report(Warning, "mode", []string{"mode", "path", "repos"}, "workspace.mode static without a path: tests run in a temporary workspace, as in AgentV")
	case isoSet && w.Isolation == "per_test":
		report(Error, "isolation", []string{"isolation", "mode", "path"}, "a static workspace is one directory every test runs in: isolation must be shared, not per_test")
	default:
		w.Isolation = "shared"
	}
}

// checkHooks reports a hook with nothing to do; in a merged workspace only the stages the test
// writes are checked, since the suite's hook for the stage may give them their command.
func (r *reader) checkHooks(h WorkspaceHooks, test *Workspace) {
	var mine [4]*Hook
	if test != nil {
		mine = test.Hooks.stages()
	}
	for i, hk := range h.stages() {
		if hk == nil || (test != nil && mine[i] == nil) || hk.set["command"] || hk.set["reset"] {
			continue
		}
		r.report(Diagnostic{Pos: hk.Pos, Severity: Error,
			Message: fmt.Sprintf("workspace.hooks.%s needs a command or a reset (none, fast or strict)", hookStages[i])})
	}
}

var hookStages = [4]string{"before_all", "before_each", "after_each", "after_all"}

// stages are the hooks in hookStages order.
func (h WorkspaceHooks) stages() [4]*Hook {
	return [4]*Hook{h.BeforeAll, h.BeforeEach, h.AfterEach, h.AfterAll}
}
