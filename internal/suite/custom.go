package suite

import (
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// AgentV discovers custom grader types by file name (.agentv/assertions/word-count.ts is
// type word-count): first in .agentv/assertions of the eval file's directory and of every
// directory above it, then in .agentv/graders and .agentv/judges the same way; the nearest
// wins and a built-in type is never overridden. evalgate searches only up to the repository
// root: a module outside it is not the repository's to run.
var (
	customDirs = [][]string{{"assertions"}, {"graders", "judges"}}
	customExts = []string{".ts", ".js", ".mts", ".mjs"}
)

// customKeys are the keys of a custom assertion that are not its config (AgentV's list, and
// evalgate's metric alias of name).
var customKeys = []string{"type", "name", "metric", "weight", "required", "min_score", "negate", "config"}

// customName is the type name a custom assertion file must have: AgentV turns "_" into "-"
// and otherwise matches the file name exactly.
func customName(rawType string) string {
	return strings.ReplaceAll(strings.TrimSpace(rawType), "_", "-")
}

// customModule finds the module of custom assertion type name, "" when there is none.
func (r *reader) customModule(name string) string {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return ""
	}
	var found string
	r.customDirsUp(func(dir string) bool {
		for _, ext := range customExts {
			if p := filepath.Join(dir, name+ext); r.isFile(p) {
				found = p
				return true
			}
		}
		return false
	})
	return found
}

// customTypes lists the custom assertion types visible from the eval file, for suggestions.
func (r *reader) customTypes() []string {
	var names []string
	r.customDirsUp(func(dir string) bool {
		entries, err := r.readDir(dir)
		if err != nil {
			return false
		}
		for _, e := range entries {
			for _, ext := range customExts {
				if name, ok := strings.CutSuffix(e.Name(), ext); ok && !e.IsDir() && !contains(names, name) {
					names = append(names, name)
				}
			}
		}
		return false
	})
	sort.Strings(names)
	return names
}

// customDirsUp calls visit with each directory a custom assertion may be in, in AgentV's
// order, until visit returns true.
func (r *reader) customDirsUp(visit func(dir string) bool) {
	for _, subs := range customDirs {
		for dir := r.dir; ; dir = filepath.Dir(dir) {
			if _, inside := fsroot.Rel(r.opts.Root, dir); !inside {
				break
			}
			for _, sub := range subs {
				if visit(filepath.Join(dir, ".agentv", sub)) {
					return
				}
			}
			if dir == r.opts.Root || dir == filepath.Dir(dir) {
				break
			}
		}
	}
}

// customGrader builds the grader of a custom assertion type whose module is at module. As in
// AgentV, every key but its own goes to config.
func (r *reader) customGrader(sc scope, n *yaml.Node, f map[string]*yaml.Node, name, module string, extra []string) *Grader {
	p, ok := r.path(f["type"], module)
	if !ok {
		return nil
	}
	g := &Grader{Type: name, Custom: p, Weight: 1, Pos: r.pos(n)}
	if g.Name, ok = r.graderName(sc, f); !ok {
		return nil
	}
	if g.Name == "" {
		g.Name = name
	}
	r.graderCommon(sc, f, g)
	r.extraConfig(sc, f, g, extra)
	return g
}

// extraConfig adds a grader's extra keys to its config; config: wins over a same-named key,
// as in AgentV.
func (r *reader) extraConfig(sc scope, f map[string]*yaml.Node, g *Grader, extra []string) {
	for _, k := range extra {
		if g.Config == nil {
			g.Config = map[string]any{}
		}
		if _, set := g.Config[k]; !set {
			g.Config[k] = r.value(sc, f[k])
		}
	}
}

// unknownType reports a grader type that is neither evalgate's nor a custom assertion's: with
// the closest of both when one is close, else saying where a custom assertion would be.
func (r *reader) unknownType(n *yaml.Node, rawType, typ string) {
	names := make([]string, 0, len(graderTypes))
	for k := range graderTypes {
		names = append(names, k)
	}
	custom := r.customTypes()
	if s := suggest(typ, append(names, custom...)); s != "" {
		r.errorf(n, "unknown grader type %q (did you mean %q?)", rawType, s)
		return
	}
	r.errorf(n, "unknown grader type %q; a custom assertion of that type would be .agentv/assertions/%s.ts (or .js, .mts, .mjs) in the eval file's directory or one above it, up to the repository root",
		rawType, customName(rawType))
}

// isFile reports whether p names something that is not a directory. A link that leads
// outside the root counts: r.path then refuses it, naming the link, rather than the file
// being reported missing.
func (r *reader) isFile(p string) bool {
	if !exists(p) {
		return false
	}
	fi, err := r.stat(p)
	return err != nil || !fi.IsDir()
}
