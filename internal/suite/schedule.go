package suite

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// unimplemented are the AgentV keys evalgate accepts but does not act on, by where they are
// written. Each is a warning naming it, so that nobody believes it took effect.
var unimplemented = map[string][]string{
	"suite":     {"env", "scenarios", "output_path", "timeout_seconds", "evaluator", "defaults"},
	"execution": {"cache", "budget_usd", "fail_on_error", "timeout_seconds", "skip_defaults"},
	// A test's execution: skip_defaults, threshold, target and targets are read. Trials are
	// suite-wide, as in AgentV.
	"test.execution": {"workers", "cache", "trials", "budget_usd", "fail_on_error", "timeout_seconds"},
	"test":           {"suite"},
}

// warnUnimplemented warns about each key of a mapping that evalgate accepts but ignores.
func (r *reader) warnUnimplemented(n *yaml.Node, where string) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if contains(unimplemented[where], k.Value) {
			r.warnf(k, "%s.%s is not implemented in evalgate; ignored", where, k.Value)
		}
	}
}

// matrix reads execution.targets: a list of target names or {name, use_target, hooks}.
func (r *reader) matrix(n *yaml.Node) []*MatrixTarget {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "execution.targets must be a list of target names or {name, use_target} mappings, not %s", kindOf(n))
		return nil
	}
	var out []*MatrixTarget
	seen := map[string]bool{}
	for _, c := range n.Content {
		c = resolve(c)
		m := &MatrixTarget{Pos: r.pos(c)}
		switch c.Kind {
		case yaml.ScalarNode:
			m.Name, _ = r.str(scope{}, c, "execution.targets[]")
		case yaml.MappingNode:
			f, _ := r.fields(c, "execution.targets[]", "name", "use_target", "hooks")
			m.Name = r.optStr(scope{}, f, "name", "execution.targets[]")
			m.UseTarget = strings.TrimSpace(r.optStr(scope{}, f, "use_target", "execution.targets[]"))
			if h, ok := f["hooks"]; ok && !isNull(h) {
				// Per-target hooks would have to run interleaved with the workspace's own
				// (AgentV: workspace before_each, then the target's), which evalgate's
				// workspace manager cannot do yet; running without them would grade every
				// variant on the same setup.
				r.errorf(keyNode(c, "hooks"), "execution.targets[].hooks (per-target workspace hooks) is not supported by evalgate: move the setup into workspace.hooks, or into a target of its own in targets.yaml")
			}
		default:
			r.errorf(c, "execution.targets[] must be a target name or a {name, use_target} mapping, not %s", kindOf(c))
			continue
		}
		m.Name = strings.TrimSpace(m.Name)
		if m.Name == "" {
			r.errorf(c, "execution.targets[] has no name")
			continue
		}
		if seen[m.Name] {
			r.errorf(c, "execution.targets names %q twice", m.Name)
			continue
		}
		seen[m.Name] = true
		out = append(out, m)
	}
	return out
}

// testTargets reads a test's execution.targets: names of suite matrix entries.
func (r *reader) testTargets(sc scope, n *yaml.Node, id string) []string {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "test %s: execution.targets must be a list of target names, not %s", id, kindOf(n))
		return nil
	}
	var out []string
	for _, c := range n.Content {
		if s, ok := r.str(sc, c, "execution.targets[]"); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// dependencies reads depends_on and on_dependency_failure.
func (r *reader) dependencies(sc scope, f map[string]*yaml.Node, t *Test) {
	if n, ok := f["depends_on"]; ok && !isNull(n) {
		n = resolve(n)
		items := n.Content
		if n.Kind == yaml.ScalarNode {
			items = []*yaml.Node{n} // a single id, as a list of one
		} else if n.Kind != yaml.SequenceNode {
			r.errorf(n, "test %s: depends_on must be a list of test ids, not %s", t.ID, kindOf(n))
			items = nil
		}
		for _, c := range items {
			if id, ok := r.str(sc, c, "depends_on[]"); ok {
				t.DependsOn = append(t.DependsOn, Dependency{ID: strings.TrimSpace(id), Pos: r.pos(resolve(c))})
			}
		}
	}
	if n, ok := f["on_dependency_failure"]; ok {
		switch p := r.optStr(sc, f, "on_dependency_failure", "test"); p {
		case OnDependencySkip, OnDependencyFail, OnDependencyRun:
			t.OnDependencyFailure = p
		default:
			r.errorf(n, "test %s: on_dependency_failure must be skip, fail or run, not %q", t.ID, p)
		}
		if len(t.DependsOn) == 0 {
			r.warnf(n, "test %s: on_dependency_failure has no effect without depends_on", t.ID)
		}
	}
}

// checkSchedule checks what the suite asks of the scheduler once every test is read: that
// each dependency names another test of the suite and that they form no cycle, and that each
// test's execution.targets are entries of the suite's matrix.
func (r *reader) checkSchedule(s *Suite) {
	byID := map[string]*Test{}
	for _, t := range s.Tests {
		byID[t.ID] = t
	}
	for _, t := range s.Tests {
		for _, d := range t.DependsOn {
			switch _, ok := byID[d.ID]; {
			case d.ID == t.ID:
				r.report(Diagnostic{Pos: d.Pos, Severity: Error, Message: fmt.Sprintf("test %s depends on itself", t.ID)})
			case !ok:
				r.report(Diagnostic{Pos: d.Pos, Severity: Error, Message: fmt.Sprintf("test %s depends on %q, but no test of this suite has that id%s", t.ID, d.ID, closestID(d.ID, byID))})
			}
		}
	}
	for _, cycle := range cycles(s.Tests, byID) {
		first := byID[cycle[0]]
		r.report(Diagnostic{Pos: first.Pos, Severity: Error, Message: "circular dependency: " + strings.Join(cycle, " → ")})
	}
	r.checkTestTargets(s)
}

func closestID(id string, byID map[string]*Test) string {
	ids := make([]string, 0, len(byID))
	for k := range byID {
		ids = append(ids, k)
	}
	sortStrings(ids)
	if s := suggest(id, ids); s != "" && isTypo(id, s) {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// cycles finds the dependency cycles, each once, as a path that returns to its start.
func cycles(tests []*Test, byID map[string]*Test) [][]string {
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[string]int{}
	var out [][]string
	var path []string
	var visit func(t *Test)
	visit = func(t *Test) {
		state[t.ID] = visiting
		path = append(path, t.ID)
		for _, d := range t.DependsOn {
			dep, ok := byID[d.ID]
			if !ok || dep == t {
				continue
			}
			switch state[dep.ID] {
			case visiting:
				for i, id := range path {
					if id == dep.ID {
						out = append(out, append(append([]string(nil), path[i:]...), dep.ID))
					}
				}
			case unvisited:
				visit(dep)
			}
		}
		path = path[:len(path)-1]
		state[t.ID] = done
	}
	for _, t := range tests {
		if state[t.ID] == unvisited {
			visit(t)
		}
	}
	return out
}

// checkTestTargets checks a test's execution.targets against the suite's matrix. AgentV uses
// them only to pick matrix entries: without a matrix they do nothing, and a test whose
// targets are none of the matrix's never runs. The first is a warning, the second an error.
func (r *reader) checkTestTargets(s *Suite) {
	names := s.MatrixNames()
	for _, t := range s.Tests {
		if len(s.Matrix) > 0 && t.Target != "" {
			r.report(Diagnostic{Pos: t.Pos, Severity: Warning, Message: fmt.Sprintf("test %s: execution.target %q is ignored: the suite runs every test on its execution.targets matrix (pick entries with the test's execution.targets)", t.ID, t.Target)})
		}
		if len(t.Targets) == 0 {
			continue
		}
		pos := t.targetsPos
		if len(s.Matrix) == 0 {
			r.report(Diagnostic{Pos: pos, Severity: Warning, Message: fmt.Sprintf("test %s: execution.targets only picks entries of the suite's execution.targets matrix, and this suite has none; ignored (set execution.target to run it on one target)", t.ID)})
			t.Targets = nil
			continue
		}
		var kept []string
		for _, name := range t.Targets {
			if contains(names, name) {
				kept = append(kept, name)
				continue
			}
			r.report(Diagnostic{Pos: pos, Severity: Warning, Message: fmt.Sprintf("test %s: execution.targets names %q, which is not in the suite's execution.targets (%s); it does not run there", t.ID, name, strings.Join(names, ", "))})
		}
		if len(kept) == 0 {
			r.report(Diagnostic{Pos: pos, Severity: Error, Message: fmt.Sprintf("test %s: none of its execution.targets is in the suite's execution.targets (%s), so it would never run", t.ID, strings.Join(names, ", "))})
		}
		t.Targets = kept
	}
}

// Runs are the target names a test runs on: its own execution.targets entries of the suite
// matrix, else every matrix entry; nil when the suite has no matrix (one run, on the test's
// or the suite's target).
func (s *Suite) Runs(t *Test) []string {
	if len(s.Matrix) == 0 {
		return nil
	}
	if len(t.Targets) > 0 {
		return t.Targets
	}
	return s.MatrixNames()
}

// MatrixNames are the names of the suite's execution.targets entries, in order.
func (s *Suite) MatrixNames() []string {
	out := make([]string, len(s.Matrix))
	for i, m := range s.Matrix {
		out[i] = m.Name
	}
	return out
}

// MatrixEntry is the suite's matrix entry of that name, nil when there is none.
func (s *Suite) MatrixEntry(name string) *MatrixTarget {
	for _, m := range s.Matrix {
		if m.Name == name {
			return m
		}
	}
	return nil
}
