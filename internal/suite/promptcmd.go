package suite

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// promptCommand reads an executable prompt template, prompt: {command: [argv…], config: {…}}
// (script: is AgentV's deprecated name of command). The script, the last element, is found
// like a content file (from the eval file's directory up to the repository root) and made
// absolute. Its config: is the grader's config, replacing any other (AgentV's rule).
func (r *reader) promptCommand(sc scope, n *yaml.Node, g *Grader) {
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
	argv := r.scriptArgv(sc, cmd, "prompt.command", "prompt command")
	if argv == nil {
		return
	}
	g.PromptCommand = argv
	if c, ok := f["config"]; ok {
		m, isMap := r.value(sc, c).(map[string]any)
		if !isMap {
			r.errorf(c, "prompt.config must be a mapping, not %s", kindOf(c))
			return
		}
		g.Config = m
	}
}

// scriptArgv reads the argv of a command whose last element is a script: found like a
// content file (from the eval file's directory up to the repository root) and made absolute.
// what names the list in messages, kind the script ("prompt command"); nil on error.
func (r *reader) scriptArgv(sc scope, cmd *yaml.Node, what, kind string) []string {
	cmd = resolve(cmd)
	if cmd.Kind != yaml.SequenceNode || len(cmd.Content) == 0 {
		r.errorf(cmd, "%s must be a non-empty list of argv strings, not %s", what, kindOf(cmd))
		return nil
	}
	argv := make([]string, 0, len(cmd.Content))
	for _, c := range cmd.Content {
		s, ok := r.str(sc, c, what+"[]")
		if !ok {
			return nil
		}
		if strings.TrimSpace(s) == "" {
			r.errorf(c, "%s has an empty argument", what)
			return nil
		}
		argv = append(argv, s)
	}
	last := resolve(cmd.Content[len(cmd.Content)-1])
	script := r.search(argv[len(argv)-1])
	if !r.isFile(script) {
		r.errorf(last, "%s file not found: %s (looked for %s and the same path from each directory above it up to the repository root)%s",
			kind, argv[len(argv)-1], r.rel(script), r.siblings(script))
		return nil
	}
	script, ok := r.path(last, script)
	if !ok {
		return nil
	}
	argv[len(argv)-1] = script
	return argv
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
