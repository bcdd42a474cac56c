package shard

import "github.com/evalgate/evalgate/internal/suite"

// groups joins the tests of s (by index) that must run in one shard, as a union-find forest:
// tests linked by depends_on (a dependency's result decides whether its dependent runs), and
// tests sharing one workspace (they see each other's changes, or one before_all's setup).
func groups(s *suite.Suite) []int {
	parent := make([]int, len(s.Tests))
	for i := range parent {
		parent[i] = i
	}
	byID := make(map[string]int, len(s.Tests))
	for i, t := range s.Tests {
		if _, dup := byID[t.ID]; !dup {
			byID[t.ID] = i
		}
	}
	byWorkspace := map[*suite.Workspace]int{}
	for i, t := range s.Tests {
		for _, d := range t.DependsOn {
			if j, ok := byID[d.ID]; ok {
				union(parent, i, j)
			}
		}
		ws := t.Workspace
		if ws == nil {
			ws = s.Workspace
		}
		if !shared(ws) {
			continue
		}
		// The engine and the workspace manager tell workspaces apart by spec, so do we.
		if j, ok := byWorkspace[ws]; ok {
			union(parent, i, j)
		} else {
			byWorkspace[ws] = i
		}
	}
	return parent
}

// shared reports whether tests using ws affect one another: one directory for all of them
// (isolation: shared, or a static path), or suite-wide hooks run once around them.
func shared(ws *suite.Workspace) bool {
	if ws == nil {
		return false
	}
	if ws.Isolation == "shared" || ws.Path != "" {
		return true
	}
	h := ws.Hooks
	return !h.Disabled && (h.BeforeAll != nil || h.AfterAll != nil)
}

func find(parent []int, i int) int {
	for parent[i] != i {
		parent[i] = parent[parent[i]]
		i = parent[i]
	}
	return i
}

// union joins the sets of i and j under the lower index, so a unit's root is its first test.
func union(parent []int, i, j int) {
	ri, rj := find(parent, i), find(parent, j)
	if ri == rj {
		return
	}
	if rj < ri {
		ri, rj = rj, ri
	}
	parent[rj] = ri
}
