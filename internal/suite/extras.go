package suite

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// promptfooSuite reads the promptfoo-aligned suite fields: prompts, providers, default_test,
// evaluate_options.
func (r *reader) promptfooSuite(f map[string]*yaml.Node, s *Suite, d *defaults) {
	if p, ok := f["prompts"]; ok {
		p = resolve(p)
		if p.Kind == yaml.SequenceNode && len(p.Content) > 0 {
			d.prompt = resolve(p.Content[0])
			if len(p.Content) > 1 {
				r.warnf(p, "only the first of %d prompts is used", len(p.Content))
			}
		} else if p.Kind == yaml.ScalarNode {
			d.prompt = p
		}
		if d.prompt != nil && d.prompt.Kind != yaml.ScalarNode {
			r.errorf(d.prompt, "prompts[0] must be text, not %s", kindOf(d.prompt))
			d.prompt = nil
		}
		d.promptFile = r.file
	}
	if p, ok := f["providers"]; ok {
		p = resolve(p)
		if p.Kind == yaml.SequenceNode && len(p.Content) > 0 {
			first := resolve(p.Content[0])
			if first.Kind == yaml.ScalarNode {
				s.Target, s.TargetPos = first.Value, r.pos(first)
			} else if pf, _ := r.quietFields(first); pf != nil {
				for _, k := range []string{"label", "id"} {
					if v := pf[k]; v != nil && s.Target == "default" {
						s.Target, s.TargetPos = v.Value, r.pos(v)
					}
				}
			}
		}
	}
	if e, ok := f["evaluate_options"]; ok {
		if ef, _ := r.quietFields(e); ef != nil && ef["max_concurrency"] != nil {
			s.Workers, _ = r.integer(scope{}, ef["max_concurrency"], "evaluate_options.max_concurrency")
		}
	}
	if dt, ok := f["default_test"]; ok {
		r.defaultTest(dt, d)
	}
}

// defaultTest reads default_test: inline, file://path, or ref://name through .agentv/config.yaml.
func (r *reader) defaultTest(n *yaml.Node, d *defaults) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		ref := r.interp(scope{}, n, n.Value)
		if name, ok := strings.CutPrefix(ref, "ref://"); ok {
			ref = r.lookupRef(n, name)
			if ref == "" {
				return
			}
		}
		p, ok := r.path(n, ref)
		if !ok {
			return
		}
		data, err := r.readFile(p)
		if err != nil {
			r.errorf(n, "default_test %s: %v", ref, err)
			return
		}
		saved, savedDir := r.file, r.dir
		r.file, r.dir = r.rel(p), filepath.Dir(p)
		defer func() { r.file, r.dir = saved, savedDir }()
		if n = r.parseYAML(data); n == nil {
			return
		}
	}
	f, ok := r.fields(n, "default_test", "vars", "assert", "threshold", "options", "metadata", "provider", "providers", "prompts")
	if !ok {
		return
	}
	if v, ok := f["vars"]; ok {
		d.vars, _ = r.value(scope{}, v).(map[string]any)
	}
	if a, ok := f["assert"]; ok {
		d.graders = append(d.graders, r.graders(scope{}, a, "default_test.assert")...)
	}
	if t, ok := f["threshold"]; ok {
		d.threshold = r.threshold(scope{}, t, "default_test.threshold")
	}
	if o, ok := f["options"]; ok {
		if of, _ := r.quietFields(o); of != nil && of["provider"] != nil {
			d.judge = r.defaultJudge(of["provider"])
		}
		if of, _ := r.quietFields(o); of != nil && of["rubric_prompt"] != nil {
			p, _ := r.str(scope{}, of["rubric_prompt"], "options.rubric_prompt")
			if strings.HasPrefix(p, "file://") {
				if path, ok := r.path(of["rubric_prompt"], p); ok {
					data, err := r.readFile(path)
					if err != nil {
						r.errorf(of["rubric_prompt"], "rubric_prompt %s: %v", p, err)
					}
					p = string(data)
				}
			}
			d.rubricPrompt = p
		}
	}
}

// defaultJudge reads default_test.options.provider — a name, or {id: name} — as the target
// that grades judge graders with no target: of their own. promptfoo writes a provider id
// there (openai:gpt-4o); evalgate's judges are targets.yaml entries, which the warning says.
func (r *reader) defaultJudge(n *yaml.Node) string {
	n = resolve(n)
	name := ""
	switch n.Kind {
	case yaml.ScalarNode:
		name = r.interp(scope{}, n, n.Value)
	case yaml.MappingNode:
		if pf, _ := r.quietFields(n); pf != nil && pf["id"] != nil {
			name = r.interp(scope{}, pf["id"], pf["id"].Value)
		}
	}
	if name == "" {
		r.warnf(n, "default_test.options.provider: expected a target name (or {id: name}); ignored, the judge is the target's grader_target")
		return ""
	}
	if strings.Contains(name, ":") {
		r.warnf(n, "default_test.options.provider %q is a promptfoo provider id; evalgate's judges are targets.yaml entries: add a target (provider: openai, model: …) and name it here", name)
	}
	return name
}

// lookupRef finds refs.<name> in the nearest .agentv/config.yaml above the eval file.
func (r *reader) lookupRef(n *yaml.Node, name string) string {
	for dir := r.dir; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ".agentv", "config.yaml")
		if exists(p) {
			if ref, found := r.refIn(n, p, name); found {
				return ref
			}
		}
		if dir == r.opts.Root || dir == filepath.Dir(dir) {
			break
		}
	}
	r.errorf(n, "ref://%s is not defined in any .agentv/config.yaml refs", name)
	return ""
}

// refIn reads refs.<name> from one config file; found is true once the lookup is settled
// (the ref, or an error reported at n).
func (r *reader) refIn(n *yaml.Node, path, name string) (string, bool) {
	data, err := r.readFile(path)
	if err != nil {
		r.errorf(n, "%s", r.fileErr(path, err))
		return "", true
	}
	saved := r.file
	r.file = r.rel(path)
	defer func() { r.file = saved }()
	root := r.parseYAML(data)
	if root == nil {
		return "", true
	}
	cfg, _ := r.quietFields(root)
	refs, _ := r.quietFields(cfg["refs"])
	v, ok := refs[name]
	if !ok {
		return "", false
	}
	ref, ok := r.str(scope{}, v, "refs."+name)
	if !ok {
		return "", true
	}
	r.refs[r.file] = true
	return ref, true
}
