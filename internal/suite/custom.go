package suite

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
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
			if _, inside := inRoot(r.opts.Root, dir); !inside {
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
func (r *reader) customGrader(n *yaml.Node, f map[string]*yaml.Node, name, module string, extra []string) *Grader {
	p, ok := r.path(f["type"], module)
	if !ok {
		return nil
	}
	g := &Grader{Name: r.optStr(f, "name", "grader"), Type: name, Custom: p, Weight: 1, Pos: r.pos(n)}
	if g.Name == "" {
		g.Name = r.optStr(f, "metric", "grader")
	}
	nameNode := f["name"]
	if nameNode == nil {
		nameNode = f["metric"]
	}
	if !r.checkName(nameNode, "grader name", g.Name) {
		return nil
	}
	if g.Name == "" {
		g.Name = name
	}
	r.graderCommon(f, g)
	r.extraConfig(f, g, extra)
	return g
}

// extraConfig adds a grader's extra keys to its config; config: wins over a same-named key,
// as in AgentV.
func (r *reader) extraConfig(f map[string]*yaml.Node, g *Grader, extra []string) {
	for _, k := range extra {
		if g.Config == nil {
			g.Config = map[string]any{}
		}
		if _, set := g.Config[k]; !set {
			g.Config[k] = r.value(f[k])
		}
	}
}

// unknownType reports a grader type that is neither evalgate's nor a custom assertion's,
// suggesting the closest of both and saying where custom assertions are looked for.
func (r *reader) unknownType(n *yaml.Node, rawType, typ string) {
	names := make([]string, 0, len(graderTypes))
	for k := range graderTypes {
		names = append(names, k)
	}
	custom := r.customTypes()
	msg := fmt.Sprintf("unknown grader type %q", rawType)
	if s := suggest(typ, append(names, custom...)); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	r.errorf(n, "%s; a custom assertion of that type would be .agentv/assertions/%s.ts (or .js, .mts, .mjs) in the eval file's directory or one above it, up to the repository root",
		msg, customName(rawType))
}

// promptCommand reads an executable prompt template, prompt: {command: [argv…], config: {…}}
// (script: is AgentV's deprecated name of command). The script, the last element, is found
// like a content file (from the eval file's directory up to the repository root) and made
// absolute. Its config: is the grader's config, replacing any other (AgentV's rule).
func (r *reader) promptCommand(n *yaml.Node, g *Grader) {
	f, ok := r.fields(n, "prompt", "command", "script", "config")
	if !ok {
		return
	}
	cmd := f["command"]
	if cmd == nil {
		cmd = f["script"]
	}
	if cmd == nil {
		r.errorf(n, "prompt needs command: the argv of a script that prints the judge prompt, e.g. [node, ../prompts/grader.mjs]")
		return
	}
	if cmd.Kind != yaml.SequenceNode || len(cmd.Content) == 0 {
		r.errorf(cmd, "prompt.command must be a non-empty list of argv strings, not %s", kindOf(cmd))
		return
	}
	argv := make([]string, 0, len(cmd.Content))
	for _, c := range cmd.Content {
		s, ok := r.str(c, "prompt.command[]")
		if !ok {
			return
		}
		if strings.TrimSpace(s) == "" {
			r.errorf(c, "prompt.command has an empty argument")
			return
		}
		argv = append(argv, s)
	}
	last := resolve(cmd.Content[len(cmd.Content)-1])
	script := r.search(argv[len(argv)-1])
	if !r.isFile(script) {
		r.errorf(last, "prompt command file not found: %s (looked for %s and the same path from each directory above it up to the repository root)%s",
			argv[len(argv)-1], r.rel(script), r.siblings(script))
		return
	}
	if script, ok = r.path(last, script); !ok {
		return
	}
	argv[len(argv)-1] = script
	g.PromptCommand = argv
	if c, ok := f["config"]; ok {
		m, isMap := r.value(c).(map[string]any)
		if !isMap {
			r.errorf(c, "prompt.config must be a mapping, not %s", kindOf(c))
			return
		}
		g.Config = m
	}
}

// siblings names the files next to a missing one that share its extension, so a renamed
// script is found at a glance ("; there: custom-evaluator.ts").
func (r *reader) siblings(missing string) string {
	entries, err := r.readDir(filepath.Dir(missing))
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && filepath.Ext(e.Name()) == filepath.Ext(missing) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 || len(names) > 5 {
		return ""
	}
	return "; in " + r.rel(filepath.Dir(missing)) + ": " + strings.Join(names, ", ")
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
