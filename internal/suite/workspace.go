package suite

import (
	"path/filepath"
	"regexp"
	"sort"

	"gopkg.in/yaml.v3"
)

var workspaceKeys = []string{"template", "isolation", "hooks", "repos", "mode", "path", "docker", "env"}

// removedWorkspaceKeys are keys AgentV 4.42 refuses, with its advice.
var removedWorkspaceKeys = map[string]string{
	"static_path": "workspace.static_path has been removed: use workspace.path with workspace.mode: static",
	"pool":        "workspace.pool has been removed: use workspace.mode: pooled or temp",
	"static":      "workspace.static has been removed: use workspace.mode: static",
}

// workspace reads a workspace object, or a path to a YAML file holding one, and checks how its
// keys fit together.
func (r *reader) workspace(n *yaml.Node) *Workspace {
	w := r.workspaceSpec(scope{}, n)
	if w != nil {
		r.settleWorkspace(w, nil, "")
	}
	return w
}

// workspaceSpec reads a workspace as written, each key checked on its own; settleWorkspace
// checks the combination, once a test's workspace is merged over the suite's.
func (r *reader) workspaceSpec(sc scope, n *yaml.Node) *Workspace {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		return r.workspaceFile(sc, n)
	}
	f, ok := r.workspaceFields(n)
	if !ok {
		return nil
	}
	// per_test is evalgate's default (AgentV shares one copy): diffs never pile up across tests.
	w := &Workspace{Isolation: "per_test", Pos: r.pos(n), set: map[string]Pos{}, dir: r.dir}
	for k, v := range f {
		if !isNull(v) {
			w.set[k] = r.pos(v)
		}
	}
	r.workspaceTemplate(sc, f, w)
	if iso := r.optStr(sc, f, "isolation", "workspace"); iso != "" {
		if iso != "per_test" && iso != "shared" {
			r.errorf(f["isolation"], "workspace isolation must be per_test or shared, not %q", iso)
		}
		w.Isolation = iso
	}
	if h, ok := f["hooks"]; ok {
		w.Hooks = r.hooks(sc, h)
	}
	if rs, ok := f["repos"]; ok {
		w.Repos = r.repos(sc, rs)
	}
	if e, ok := f["env"]; ok {
		w.Env = r.workspaceEnv(sc, e)
	}
	if _, ok := f["docker"]; ok {
		// AgentV runs code graders inside the image: on the host they would see other tools.
		r.errorf(keyNode(n, "docker"), "workspace.docker is not supported: evalgate runs code graders on the host, "+
			"not in a container; run evalgate in an image that has what the graders need, and remove docker")
	}
	r.workspaceMode(sc, f, w)
	return w
}

// workspaceFile reads a workspace given as a path: a directory is the template itself, a file
// holds the workspace settings, whose positions and relative paths belong to that file.
func (r *reader) workspaceFile(sc scope, n *yaml.Node) *Workspace {
	s, _ := r.str(sc, n, "workspace")
	p, ok := r.path(n, s)
	if !ok {
		return nil
	}
	if fi, err := r.stat(p); err == nil && fi.IsDir() {
		return &Workspace{Template: p, Isolation: "per_test", Pos: r.pos(n), set: map[string]Pos{"template": r.pos(n)}, dir: r.dir}
	}
	data, err := r.readFile(p)
	if err != nil {
		r.errorf(n, "workspace %s: %v", s, err)
		return nil
	}
	saved, savedDir := r.file, r.dir
	r.file, r.dir = r.rel(p), filepath.Dir(p)
	defer func() { r.file, r.dir = saved, savedDir }()
	root := r.parseYAML(data)
	if root == nil {
		return nil
	}
	if inner := valueNode(root, "workspace"); inner != resolve(root) && resolve(inner).Kind == yaml.MappingNode {
		r.errorf(keyNode(root, "workspace"), "a workspace file holds the workspace settings directly: remove the top-level workspace: wrapper")
		return nil
	}
	w := r.workspaceSpec(sc, root)
	if w != nil {
		w.fromFile = true
	}
	return w
}

// workspaceFields reads the workspace mapping. Keys AgentV removed are accepted here so that
// each gets AgentV's advice rather than a generic unknown-key error.
func (r *reader) workspaceFields(n *yaml.Node) (map[string]*yaml.Node, bool) {
	known := append([]string(nil), workspaceKeys...)
	for k := range removedWorkspaceKeys {
		known = append(known, k)
	}
	f, ok := r.fields(n, "workspace", known...)
	if !ok {
		return nil, false
	}
	for _, k := range sortedKeys(removedWorkspaceKeys) {
		if _, ok := f[k]; ok {
			r.errorf(keyNode(n, k), "%s", removedWorkspaceKeys[k])
		}
	}
	return f, true
}

// workspaceTemplate reads the template directory the workspace is copied from.
func (r *reader) workspaceTemplate(sc scope, f map[string]*yaml.Node, w *Workspace) {
	t := r.optStr(sc, f, "template", "workspace")
	if t == "" {
		return
	}
	if p, ok := r.path(f["template"], t); ok {
		w.Template = p
		if fi, err := r.stat(p); err != nil || !fi.IsDir() {
			r.errorf(f["template"], "workspace template %s is not a directory", t)
		}
	}
}

// workspaceMode reads mode and path as AgentV does: a path alone means static.
func (r *reader) workspaceMode(sc scope, f map[string]*yaml.Node, w *Workspace) {
	w.Mode = r.optStr(sc, f, "mode", "workspace")
	switch w.Mode {
	case "", "pooled", "temp", "static":
	default:
		r.errorf(f["mode"], "workspace.mode must be pooled, temp or static, not %q", w.Mode)
		return
	}
	if p := r.optStr(sc, f, "path", "workspace"); p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.dir, p)
		}
		w.Path = filepath.Clean(p)
	}
}

// hooks reads workspace.hooks.
func (r *reader) hooks(sc scope, n *yaml.Node) WorkspaceHooks {
	var h WorkspaceHooks
	f, ok := r.fields(n, "workspace.hooks", "enabled", "before_all", "before_each", "after_each", "after_all")
	if !ok {
		return h
	}
	if e, ok := f["enabled"]; ok {
		on, ok := r.boolean(sc, e, "workspace.hooks.enabled")
		h.Disabled, h.enabledSet = ok && !on, ok
	}
	h.BeforeAll = r.hook(sc, f["before_all"], "before_all")
	h.BeforeEach = r.hook(sc, f["before_each"], "before_each")
	h.AfterEach = r.hook(sc, f["after_each"], "after_each")
	h.AfterAll = r.hook(sc, f["after_all"], "after_all")
	return h
}

// hook reads one hook: a command (string or list), or AgentV's object with command (or the
// deprecated script), timeout_ms, cwd and reset.
func (r *reader) hook(sc scope, n *yaml.Node, stage string) *Hook {
	if n == nil {
		return nil
	}
	what := "workspace.hooks." + stage
	h := &Hook{Pos: r.pos(n), Dir: r.dir, set: map[string]bool{}}
	if resolve(n).Kind != yaml.MappingNode {
		// Written, even if unusable: its own error says why.
		h.Command, h.set["command"] = r.command(sc, n, what), true
		return h
	}
	f, _ := r.fields(n, what, "command", "script", "timeout_ms", "timeoutMs", "cwd", "reset")
	cmd := f["command"]
	if s, ok := f["script"]; ok {
		if cmd == nil {
			r.warnf(keyNode(n, "script"), "%s.script is deprecated: use command", what)
			cmd = s
		} else {
			r.errorf(keyNode(n, "script"), "%s has both command and script: script is the deprecated name of command; remove it", what)
		}
	}
	if cmd != nil && !isNull(cmd) {
		h.Command, h.set["command"] = r.command(sc, cmd, what+".command"), true
	}
	for _, k := range []string{"timeout_ms", "timeoutMs"} {
		if t, ok := f[k]; ok {
			if ms, ok := r.integer(sc, t, what+"."+k); ok && ms < 0 {
				r.errorf(t, "%s.%s must not be negative", what, k)
			} else {
				h.TimeoutMS, h.set["timeout_ms"] = ms, ok
			}
		}
	}
	h.Cwd = r.optStr(sc, f, "cwd", what)
	h.set["cwd"] = h.Cwd != ""
	if h.Reset = r.optStr(sc, f, "reset", what); h.Reset != "" {
		h.set["reset"] = true
		switch {
		case h.Reset != "none" && h.Reset != "fast" && h.Reset != "strict":
			r.errorf(f["reset"], "%s.reset must be none, fast or strict, not %q", what, h.Reset)
		case h.Reset != "none" && (stage == "before_all" || stage == "after_all"):
			r.warnf(f["reset"], "%s.reset does nothing: only before_each and after_each reset the workspace (as in AgentV)", what)
		}
	}
	return h
}

var pythonModule = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// workspaceEnv reads workspace.env, AgentV's preflight requirements.
func (r *reader) workspaceEnv(sc scope, n *yaml.Node) WorkspaceEnv {
	e := WorkspaceEnv{Pos: r.pos(n)}
	f, ok := r.fields(n, "workspace.env", "required_commands", "required_python_modules")
	if !ok {
		return e
	}
	e.RequiredCommands = r.names(sc, f["required_commands"], "workspace.env.required_commands", func(s string) bool {
		return s != "" && !containsControl(s)
	})
	e.RequiredPythonModules = r.names(sc, f["required_python_modules"], "workspace.env.required_python_modules", pythonModule.MatchString)
	return e
}

// names reads an optional list of strings, each of which must pass valid.
func (r *reader) names(sc scope, n *yaml.Node, what string, valid func(string) bool) []string {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a list, not %s", what, kindOf(n))
		return nil
	}
	var out []string
	for _, c := range n.Content {
		s, ok := r.str(sc, c, what+"[]")
		if !ok {
			continue
		}
		if !valid(s) {
			r.errorf(c, "%s: %q is not a valid name", what, s)
			continue
		}
		out = append(out, s)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
