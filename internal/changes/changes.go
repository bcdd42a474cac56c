// Package changes decides which eval suites a pull request touches: a suite runs when its own
// file changed, when a file it reads changed (test data, prompts, grader scripts, workspace
// templates, targets.yaml), or when a changed path matches a "run everything" glob.
package changes

import (
	"fmt"
	"path"
	"strings"

	"github.com/evalgate/evalgate/internal/glob"
)

// Suite is what selection needs to know of a suite: its file and the files it reads, as
// slash-separated paths relative to the repository root.
type Suite struct {
	Path string
	Refs []string
}

// Selection is the decision for one suite, with the reason logged and shown in reports.
type Selection struct {
	Path     string
	Selected bool
	Why      string
}

// Select decides, for each suite, whether the changed files touch it. changed must hold both
// names of a renamed file. runAll are globs (with **) that select every suite when any changed
// path matches.
//
// The changed set is indexed once, so the cost is linear in changed paths plus references:
// a pull request of thousands of files against hundreds of suites must not re-scan the set
// per reference.
func Select(suites []Suite, changed []string, runAll []string) []Selection {
	idx := newIndex(changed)
	all := idx.runAll(runAll)
	out := make([]Selection, 0, len(suites))
	for _, s := range suites {
		sel := Selection{Path: s.Path}
		if idx.files[clean(s.Path)] {
			sel.Selected, sel.Why = true, "changed: "+s.Path
		} else if ref := idx.refChanged(s.Refs); ref != "" {
			sel.Selected, sel.Why = true, "references changed file: "+ref
		} else if all != "" {
			sel.Selected, sel.Why = true, all
		} else {
			sel.Why = "not touched by this change"
		}
		out = append(out, sel)
	}
	return out
}

// index holds the changed paths and, for every directory above one, the least changed path
// under it (least so that the reason shown does not depend on map order).
type index struct {
	files map[string]bool
	under map[string]string
	paths []string
}

func newIndex(changed []string) *index {
	idx := &index{files: make(map[string]bool, len(changed)), under: map[string]string{}}
	for _, c := range changed {
		c = clean(c)
		if idx.files[c] {
			continue
		}
		idx.files[c] = true
		idx.paths = append(idx.paths, c)
		for dir := c; ; {
			i := strings.LastIndexByte(dir, '/')
			if i <= 0 {
				break
			}
			dir = dir[:i]
			if least, ok := idx.under[dir]; ok && least <= c {
				// Every directory above dir already holds a path no greater than c.
				break
			}
			idx.under[dir] = c
		}
	}
	return idx
}

// runAll says which run_all_paths glob matched which changed path, "" when none did: each
// glob is tried once against the set, and the least matching path is named.
func (idx *index) runAll(globs []string) string {
	for _, g := range globs {
		pat := clean(g)
		match := ""
		for _, c := range idx.paths {
			if (match == "" || c < match) && glob.Match(pat, c) {
				match = c
			}
		}
		if match != "" {
			return fmt.Sprintf("run_all_paths matched %s (%s)", g, match)
		}
	}
	return ""
}

// refChanged returns the first reference that changed; a referenced directory (a workspace
// template) counts when anything under it changed, and then the path under it is returned.
func (idx *index) refChanged(refs []string) string {
	for _, r := range refs {
		r = clean(r)
		if idx.files[r] {
			return r
		}
		if c, ok := idx.under[r]; ok {
			return c
		}
	}
	return ""
}

func clean(p string) string {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	return strings.TrimPrefix(p, "./")
}
