// Package changes decides which eval suites a pull request touches: a suite runs when its own
// file changed, when a file it reads changed (test data, prompts, grader scripts, workspace
// templates, targets.yaml), or when a changed path matches a "run everything" glob.
package changes

import (
	"fmt"
	"path"
	"sort"
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
func Select(suites []Suite, changed []string, runAll []string) []Selection {
	set := map[string]bool{}
	for _, c := range changed {
		set[clean(c)] = true
	}
	all := ""
	for _, g := range runAll {
		for _, c := range sorted(set) {
			if glob.Match(clean(g), c) {
				all = fmt.Sprintf("run_all_paths matched %s (%s)", g, c)
				break
			}
		}
		if all != "" {
			break
		}
	}
	out := make([]Selection, 0, len(suites))
	for _, s := range suites {
		sel := Selection{Path: s.Path}
		switch {
		case set[clean(s.Path)]:
			sel.Selected, sel.Why = true, "changed: "+s.Path
		case refChanged(s, set) != "":
			sel.Selected, sel.Why = true, "references changed file: "+refChanged(s, set)
		case all != "":
			sel.Selected, sel.Why = true, all
		default:
			sel.Why = "not touched by this change"
		}
		out = append(out, sel)
	}
	return out
}

// refChanged returns the first file the suite reads that changed; a referenced directory
// (a workspace template) counts when anything under it changed.
func refChanged(s Suite, set map[string]bool) string {
	for _, r := range s.Refs {
		r = clean(r)
		if set[r] {
			return r
		}
		for _, c := range sorted(set) {
			if strings.HasPrefix(c, r+"/") {
				return c
			}
		}
	}
	return ""
}

func clean(p string) string {
	p = path.Clean(strings.ReplaceAll(p, "\\", "/"))
	return strings.TrimPrefix(p, "./")
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
