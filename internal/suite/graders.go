package suite

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/safetext"
)

// graderTypes are the normalised types evalgate knows, with the fields each one requires.
var graderTypes = map[string][]string{
	"rubrics": nil, "llm-grader": nil, "likert": nil, "code-grader": {"command"},
	"contains": {"value"}, "icontains": {"value"}, "contains-any": {"value"}, "contains-all": {"value"},
	"icontains-any": {"value"}, "icontains-all": {"value"}, "starts-with": {"value"}, "ends-with": {"value"},
	"regex": {"value"}, "equals": {"value"}, "is-json": nil, "tool-trajectory": {"mode"}, "field-accuracy": {"fields"},
	"latency": {"threshold"}, "cost": {"budget"}, "token-usage": nil, "execution-metrics": nil,
	"skill-trigger": {"skill"}, "composite": nil,
}

// typeAliases map legacy, snake_case and promptfoo names onto evalgate's types.
var typeAliases = map[string]string{
	"rubric": "rubrics", "llm-rubric": "rubrics", "llm-judge": "llm-grader", "code-judge": "code-grader",
	"script": "code-grader", "rubric-eval": "likert", "assert-set": "composite",
}

var commonGraderKeys = []string{"type", "name", "metric", "weight", "required", "min_score", "negate", "samples",
	"temperature", "target", "config", "value", "flags", "criteria", "rubrics", "prompt", "command", "script", "cwd",
	"assertions", "evaluators", "aggregator", "scheme", "scale", "overall", "description", "timeout_seconds", "max_steps",
	"model", "threshold", "budget", "mode", "expected", "minimums", "args_match", "fields", "aggregation", "skill",
	"should_trigger", "max_total", "max_input", "max_output", "max_tool_calls", "max_llm_calls", "max_tokens",
	"max_cost_usd", "max_duration_ms", "target_exploration_ratio", "exploration_tolerance", "weights", "include",
	"preprocessors", "provider", "transform", "annotation_type", "label", "notes",
	// AgentV's camelCase aliases of the agent graders' keys; package grader maps them.
	"maxToolCalls", "maxLlmCalls", "maxTokens", "maxCostUsd", "maxDurationMs", "targetExplorationRatio",
	"explorationTolerance", "maxTotal", "maxInput", "maxOutput", "argsMatch"}

// ownKeys are the fields of the grader types that, as in AgentV, take every other key as
// config ("extra keys → config"): such a key is a setting for the script or the prompt, not a
// typo. Other types warn about keys outside commonGraderKeys.
var ownKeys = map[string][]string{
	"code-grader": {"type", "name", "metric", "weight", "required", "min_score", "negate", "command", "script", "cwd",
		"target", "config", "timeout_seconds", "timeout_ms", "preprocessors"},
	"llm-grader": {"type", "name", "metric", "weight", "required", "min_score", "negate", "samples", "temperature",
		"target", "provider", "config", "value", "criteria", "rubrics", "prompt", "max_steps", "model", "preprocessors"},
	customType: customKeys,
}

// customType stands for every custom assertion type in ownKeys.
const customType = "\x00custom"

// graders reads an assertions list. Plain strings are grouped into one rubrics grader at the
// first string's place, weighing the number of strings (AgentV's rule).
func (r *reader) graders(sc scope, n *yaml.Node, what string) []*Grader {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a list, not %s", what, kindOf(n))
		return nil
	}
	var out []*Grader
	var group *Grader
	for _, item := range n.Content {
		item = resolve(item)
		if item.Kind == yaml.ScalarNode {
			if item.Tag != "!!str" {
				r.errorf(item, "%s[]: %s is not a criterion (write text, quoted if it is a number, or a grader mapping)", what, kindOf(item))
				continue
			}
			s, ok := r.str(sc, item, what+"[]")
			if !ok {
				continue
			}
			if strings.TrimSpace(s) == "" {
				r.errorf(item, "%s[]: a blank criterion (the judge would grade nothing)", what)
				continue
			}
			if group == nil {
				group = &Grader{Name: "rubrics", Type: "rubrics", Pos: r.pos(item)}
				out = append(out, group)
			}
			group.Criteria = append(group.Criteria, &Criterion{ID: fmt.Sprintf("rubric-%d", len(group.Criteria)+1),
				Outcome: s, Weight: 1, Required: true, Pos: r.pos(item)})
			group.Weight = float64(len(group.Criteria))
			continue
		}
		if inc := keyNode(item, "include"); inc != item {
			out = append(out, r.include(sc, item, what)...)
			continue
		}
		if g := r.grader(sc, item, what); g != nil {
			out = append(out, g)
		}
	}
	return out
}

// include splices an assertion template: .agentv/templates/<name>.yaml found walking up, or a
// path relative to the eval file. Depth is bounded and cycles are errors.
func (r *reader) include(sc scope, n *yaml.Node, what string) []*Grader {
	f, _ := r.fields(n, what+"[]", "include")
	name, ok := r.str(sc, f["include"], "include")
	if !ok {
		return nil
	}
	path := r.findTemplate(name)
	if path == "" {
		r.errorf(f["include"], "include %q: no template .agentv/templates/%s.yaml found", name, name)
		return nil
	}
	if _, ok := r.path(f["include"], path); !ok {
		return nil
	}
	for _, p := range r.includes {
		if p == path {
			chain := make([]string, len(r.includes))
			for i, inc := range r.includes {
				chain[i] = r.rel(inc)
			}
			r.errorf(f["include"], "include cycle: %s includes itself via %s", name, strings.Join(chain, " → "))
			return nil
		}
	}
	if len(r.includes) >= 3 {
		r.errorf(f["include"], "include %q: templates nest deeper than 3", name)
		return nil
	}
	data, err := r.readFile(path)
	if err != nil {
		r.errorf(f["include"], "include %q: %v", name, err)
		return nil
	}
	r.includes = append(r.includes, path)
	saved := r.file
	r.file = r.rel(path)
	defer func() { r.file, r.includes = saved, r.includes[:len(r.includes)-1] }()
	root := r.parseYAML(data)
	if root == nil {
		return nil
	}
	tf, ok := r.fields(root, "template", "assertions", "description", "name")
	if !ok || tf["assertions"] == nil {
		r.errorf(root, "template %s has no assertions list", name)
		return nil
	}
	return r.graders(sc, tf["assertions"], "template assertions")
}

func (r *reader) findTemplate(name string) string {
	if strings.ContainsAny(name, "/\\") || strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.dir, p)
		}
		return filepath.Clean(p)
	}
	for dir := r.dir; ; dir = filepath.Dir(dir) {
		for _, ext := range []string{".yaml", ".yml"} {
			p := filepath.Join(dir, ".agentv", "templates", name+ext)
			if exists(p) {
				return p
			}
		}
		if dir == r.opts.Root || dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// normaliseType lower-cases, maps _ to -, strips a not- prefix (negation) and resolves aliases.
func normaliseType(t string) (string, bool) {
	t = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(t)), "_", "-")
	neg := false
	if strings.HasPrefix(t, "not-") {
		t, neg = strings.TrimPrefix(t, "not-"), true
	}
	if a, ok := typeAliases[t]; ok {
		t = a
	}
	return t, neg
}

var placeholder = regexp.MustCompile(`\{\{\s*[a-zA-Z0-9_]+\s*\}\}`)

// grader reads one grader mapping.
func (r *reader) grader(sc scope, n *yaml.Node, what string) *Grader {
	f, ok := r.fields(n, what+"[]") // keys are checked once the type is known
	if !ok {
		return nil
	}
	rawType := r.optStr(sc, f, "type", "grader")
	typ, neg := normaliseType(rawType)
	_, known := graderTypes[typ]
	module := ""
	if !known && rawType != "" {
		module = r.customModule(customName(rawType))
	}
	if module != "" {
		return r.customGrader(sc, n, f, customName(rawType), module, r.graderKeys(n, what+"[]", customType))
	}
	extra := r.graderKeys(n, what+"[]", typ)
	if rawType == "" {
		r.errorf(n, "grader has no type")
		return nil
	}
	if !known {
		r.unknownType(f["type"], rawType, typ)
		return nil
	}
	g := &Grader{Type: typ, Weight: 1, Negate: neg, Pos: r.pos(n)}
	if g.Name, ok = r.graderName(sc, f); !ok {
		return nil
	}
	r.graderCommon(sc, f, g)
	// A script has no judge: its target is AgentV's target proxy switch, not a judge name
	// (graderSpecific keeps it), and judge settings written on it went to config.
	if typ != "code-grader" {
		r.judgeSettings(sc, f, g)
	}
	r.extraConfig(sc, f, g, extra)
	for _, req := range graderTypes[typ] {
		if _, ok := f[req]; !ok && (req != "command" || f["script"] == nil) {
			r.errorf(n, "%s grader needs %s", typ, req)
		}
	}
	r.graderSpecific(sc, n, f, g, rawType)
	if p, ok := f["preprocessors"]; ok {
		if g.IsJudge() {
			g.Preprocessors = r.preprocessors(sc, p, "preprocessors")
		} else {
			r.warnf(keyNode(n, "preprocessors"), "preprocessors only apply to LLM graders (llm-grader, rubrics); ignored on a %s grader", typ)
		}
	}
	if g.Name == "" {
		g.Name = derivedName(g)
		if neg {
			// not-icontains is not icontains: a report row must not say it is.
			g.Name = "not-" + g.Name
		}
	}
	return g
}

// graderName reads a grader's name (or promptfoo's metric); ok is false for a name that
// cannot be printed.
func (r *reader) graderName(sc scope, f map[string]*yaml.Node) (name string, ok bool) {
	name, node := r.optStr(sc, f, "name", "grader"), f["name"]
	if name == "" {
		name, node = r.optStr(sc, f, "metric", "grader"), f["metric"]
	}
	return name, r.checkName(node, "grader name", name)
}

// graderKeys checks a grader's keys against its type: it returns, in YAML order, the keys
// that go to config for a type in ownKeys, and warns about unknown keys for the others.
func (r *reader) graderKeys(n *yaml.Node, what, typ string) []string {
	n = resolve(n)
	own, toConfig := ownKeys[typ]
	var extra []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		switch {
		case toConfig && !contains(own, k.Value) && !contains(extra, k.Value):
			// Extra keys are the script's or prompt's config (AgentV), unless the key is one of
			// the grader's own with two letters swapped or one mistyped (weigth, comand): a
			// longer or shorter word may well be a config key of its own (weights).
			if s := suggest(k.Value, own); s != "" && len(s) == len(k.Value) && isTypo(k.Value, s) {
				r.errorf(k, "%s: unknown key %q (did you mean %q?)", what, k.Value, s)
				continue
			}
			extra = append(extra, k.Value)
		case !toConfig && !contains(commonGraderKeys, k.Value):
			r.unknownKey(k, what, commonGraderKeys)
		}
	}
	return extra
}

func (r *reader) graderCommon(sc scope, f map[string]*yaml.Node, g *Grader) {
	if w, ok := f["weight"]; ok {
		if v, ok := r.num(sc, w, "weight"); ok {
			if v < 0 {
				r.errorf(w, "weight must not be negative, not %v", v)
			}
			g.Weight = v
		}
	}
	if q, ok := f["required"]; ok {
		if q.Kind == yaml.ScalarNode && (q.Tag == "!!int" || q.Tag == "!!float") {
			if v, ok := r.num(sc, q, "required"); ok {
				if v <= 0 || v > 1 {
					r.errorf(q, "required as a number is a minimum score in (0, 1], not %v", v)
				}
				g.Required, g.MinScore = true, &v
			}
		} else {
			g.Required, _ = r.boolean(sc, q, "required")
		}
	}
	if m, ok := f["min_score"]; ok {
		if v, ok := r.num(sc, m, "min_score"); ok {
			if v <= 0 || v > 1 {
				r.errorf(m, "min_score must be in (0, 1], not %v", v)
			}
			g.MinScore = &v
		}
	}
	if m, ok := f["threshold"]; ok && (g.Type == "rubrics" || g.Type == "llm-grader") && f["required"] == nil && f["min_score"] == nil {
		// promptfoo's assertion threshold: the assertion (so the test) fails below it —
		// evalgate's required grader with that min_score. Ignoring it would pass what fails.
		if v, ok := r.num(sc, m, "threshold"); ok {
			if v <= 0 || v > 1 {
				r.errorf(m, "threshold must be in (0, 1], not %v", v)
			}
			g.Required, g.MinScore = true, &v
		}
	}
	if v, ok := f["negate"]; ok {
		b, _ := r.boolean(sc, v, "negate")
		g.Negate = g.Negate || b
	}
	if c, ok := f["config"]; ok {
		g.Config, _ = r.value(sc, c).(map[string]any)
	}
}

// judgeSettings reads the fields that tune a grader's judge.
func (r *reader) judgeSettings(sc scope, f map[string]*yaml.Node, g *Grader) {
	if v, ok := f["samples"]; ok {
		if k, ok := r.integer(sc, v, "samples"); ok {
			if k < 1 || k > 20 {
				r.errorf(v, "samples must be between 1 and 20, not %d", k)
			}
			g.Samples = k
		}
	}
	if v, ok := f["temperature"]; ok {
		if t, ok := r.num(sc, v, "temperature"); ok {
			g.Temperature = &t
		}
	}
	g.Target = r.optStr(sc, f, "target", "grader")
	if g.Target == "" {
		g.Target = r.optStr(sc, f, "provider", "grader")
	}
}

// mappingKeys are a mapping's keys in YAML order, each once.
func mappingKeys(n *yaml.Node) []string {
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// derivedName names an unnamed grader as AgentV does.
func derivedName(g *Grader) string {
	switch g.Type {
	case "contains", "icontains", "starts-with", "ends-with", "equals":
		if s, ok := g.Value.(string); ok {
			return g.Type + "-" + s
		}
	case "regex":
		if s, ok := g.Value.(string); ok {
			// AgentV slices 30 UTF-16 units: runes, for any pattern in the BMP.
			return "regex-" + safetext.TruncateRunes(s, 30)
		}
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		if l, ok := g.Value.([]any); ok {
			return fmt.Sprintf("%s-%d", g.Type, len(l))
		}
	case "skill-trigger":
		return fmt.Sprintf("skill-trigger-%v", g.Params["skill"])
	}
	return g.Type
}
