package suite

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/providers"
)

// targetsReader reads a targets.yaml. Unlike an eval file, its entries hold credentials: what
// a ${{ VAR }} may read depends on the key it lands in (field), and the values of credential
// fields are collected so the publisher can scrub them.
type targetsReader struct {
	decoder
	// secrets are the values interpolated into, or written in, credential fields.
	secrets []string
}

func newTargetsReader(path string, opts LoadOptions) *targetsReader {
	return &targetsReader{decoder: newDecoder(path, opts)}
}

// read reads the targets file at abs; nil when it cannot be used (the errors are recorded).
func (r *targetsReader) read(abs string) *TargetsFile {
	data, err := r.readFile(abs)
	if err != nil {
		r.reportf("%v", err)
		return nil
	}
	root := r.parseYAML(data)
	if root == nil {
		return nil
	}
	f, ok := r.fields(root, "targets file", "$schema", "targets")
	if !ok {
		return nil
	}
	list := resolve(f["targets"])
	if list == nil || list.Kind != yaml.SequenceNode {
		r.errorf(root, "targets file needs a targets: list")
		return nil
	}
	tf := &TargetsFile{Path: abs}
	seen := map[string]bool{}
	for _, n := range list.Content {
		t := r.target(n)
		if t == nil {
			continue
		}
		switch {
		case t.Name == "":
			r.errorf(n, "target has no name")
			continue
		case seen[t.Name]:
			r.errorf(n, "duplicate target name %q", t.Name)
			continue
		case t.Provider == "" && t.UseTarget == "" && t.Unset["use_target"] != "":
			msg := fmt.Sprintf("target %s: use_target: ${{ %s }} is not set (set the %s environment variable)", t.Name, t.Unset["use_target"], t.Unset["use_target"])
			r.errorf(n, "%s", msg)
			if tf.Unresolved == nil {
				tf.Unresolved = map[string]string{}
			}
			tf.Unresolved[t.Name] = msg
			continue
		case t.Provider == "" && t.UseTarget == "":
			r.errorf(n, "target %s has no provider", t.Name)
			continue
		}
		seen[t.Name] = true
		tf.Targets = append(tf.Targets, t)
	}
	tf.secrets = r.secrets
	return tf
}

// target reads one targets.yaml entry.
func (r *targetsReader) target(n *yaml.Node) *TargetConfig {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		r.errorf(n, "a target must be a mapping, not %s", kindOf(n))
		return nil
	}
	e := &entryEnv{r: r, unset: map[string]string{}, reads: map[string][]string{}}
	settings, _ := r.decode(n, setting{e: e, f: field{targets: true}}).(map[string]any)
	t := &TargetConfig{Settings: settings, Dir: r.dir, Root: r.opts.Root, Pos: r.pos(n), keyPos: map[string]Pos{}}
	if len(e.unset) > 0 {
		t.Unset = e.unset
	}
	if len(e.reads) > 0 {
		t.Reads = e.reads
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		t.keyPos[n.Content[i].Value] = r.pos(n.Content[i])
	}
	t.Name, _ = settings["name"].(string)
	t.Provider, _ = settings["provider"].(string)
	t.Provider = providers.Canonical(strings.ToLower(t.Provider))
	t.GraderTarget, _ = settings["grader_target"].(string)
	if t.GraderTarget == "" {
		t.GraderTarget, _ = settings["judge_target"].(string)
	}
	t.UseTarget, _ = settings["use_target"].(string)
	if w, ok := settings["workers"].(int); ok {
		t.Workers = w
	}
	if t.Name != "" && containsControl(t.Name) {
		r.checkName(valueNode(n, "name"), "target name", t.Name)
	}
	r.targetKeys(n, t)
	r.targetFiles(n, t)
	return t
}

// targetFiles checks that the files an entry names stay inside the root, so the error points
// at the line that names them.
func (r *targetsReader) targetFiles(n *yaml.Node, t *TargetConfig) {
	p, _ := providers.Lookup(t.Provider)
	for _, k := range p.Files {
		if s, ok := t.Settings[k].(string); ok && s != "" {
			r.path(valueNode(n, k), s)
		}
	}
}

// entryEnv collects what one entry's ${{ VAR }}s read, per setting (dotted path, as in
// TargetConfig.Unset and Reads).
type entryEnv struct {
	r     *targetsReader
	unset map[string]string   // setting → the first unset or empty variable it named
	reads map[string][]string // setting → the variables it interpolated
}

// setting interpolates the strings of an entry's setting f (see scalars).
type setting struct {
	e *entryEnv
	f field
}

func (s setting) under(k string) scalars { return setting{e: s.e, f: s.f.under(k)} }

// text interpolates a string of the setting; whatever a credential field holds, written or
// interpolated, is a secret.
func (s setting) text(n *yaml.Node) string {
	v := s.e.interp(n, n.Value, s.f)
	if credentialField(s.f.key) && v != "" {
		s.e.r.secrets = append(s.e.r.secrets, v)
	}
	return v
}

// interp applies ${{ VAR }} (a missing variable is empty, as in AgentV) to text landing in f.
func (e *entryEnv) interp(n *yaml.Node, s string, f field) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return envVar.ReplaceAllStringFunc(s, func(m string) string {
		name := envVar.FindStringSubmatch(m)[1]
		return e.env(n, name, f)
	})
}

// env is one interpolated variable of setting f, recorded as read, as unset when empty, and,
// in a credential field, as a secret.
func (e *entryEnv) env(n *yaml.Node, name string, f field) string {
	v, ok := e.r.env(n, name, "${{ "+name+" }}", f)
	if !ok {
		return ""
	}
	if f.path != "" && !slices.Contains(e.reads[f.path], name) {
		e.reads[f.path] = append(e.reads[f.path], name)
	}
	switch {
	case v == "":
		if _, ok := e.unset[f.path]; !ok {
			e.unset[f.path] = name
		}
	case f.cred && !Builtin(name) && !publicVar(name):
		// Whatever a credential field reads from the environment is treated as a secret:
		// env: DATABASE_URL: ${{ DATABASE_URL }} names no credential, and holds one.
		e.r.secrets = append(e.r.secrets, v)
	}
	return v
}
