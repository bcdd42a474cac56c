package suite

import (
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// graderSpecific reads the fields that belong to the grader's type.
func (r *reader) graderSpecific(sc scope, n *yaml.Node, f map[string]*yaml.Node, g *Grader, rawType string) {
	switch g.Type {
	case "rubrics", "llm-grader":
		r.rubricGrader(sc, f, g, rawType)
	case "likert":
		g.Likert = r.likert(sc, n, f)
	case "code-grader":
		r.codeGrader(sc, f, g)
	case "contains-any", "contains-all", "icontains-any", "icontains-all":
		r.listGrader(sc, f, g)
	case "is-json":
	case "tool-trajectory", "field-accuracy", "latency", "cost", "token-usage", "execution-metrics", "skill-trigger":
		r.agentGrader(sc, f, g)
	case "composite":
		r.compositeGrader(sc, f, g)
	default:
		r.textGrader(sc, f, g)
	}
}

// codeGrader reads a script grader's command and settings.
func (r *reader) codeGrader(sc scope, f map[string]*yaml.Node, g *Grader) {
	cmd := f["command"]
	if cmd == nil {
		cmd = f["script"]
	}
	if cmd != nil {
		g.Command = r.command(sc, cmd, "command")
	}
	// cwd stays as written: the grader resolves it against the suite's Dir at run time.
	g.Cwd = r.optStr(sc, f, "cwd", "grader")
	// target (true | {max_calls}) is kept as decoded so the grader can refuse it: evalgate
	// has no target proxy, and ignoring the key would grade without what the script needs.
	g.Params = r.params(sc, f, "timeout_seconds", "timeout_ms", "target")
}

// listGrader reads the value list of contains-any and its kin.
func (r *reader) listGrader(sc scope, f map[string]*yaml.Node, g *Grader) {
	if v, ok := f["value"]; ok {
		list, ok := r.value(sc, v).([]any)
		if !ok || len(list) == 0 {
			r.errorf(v, "%s needs a non-empty list as value", g.Type)
		}
		g.Value = list
	}
}

// agentGrader reads the settings of the graders that check the agent's run (trajectory,
// fields, latency, cost, tokens, metrics, skills) as plain values for package grader.
func (r *reader) agentGrader(sc scope, f map[string]*yaml.Node, g *Grader) {
	g.Params = r.params(sc, f, "mode", "expected", "minimums", "args_match", "fields", "aggregation", "threshold",
		"budget", "max_total", "max_input", "max_output", "max_tool_calls", "max_llm_calls", "max_tokens",
		"max_cost_usd", "max_duration_ms", "target_exploration_ratio", "exploration_tolerance", "skill", "should_trigger",
		"maxToolCalls", "maxLlmCalls", "maxTokens", "maxCostUsd", "maxDurationMs", "targetExplorationRatio",
		"explorationTolerance", "maxTotal", "maxInput", "maxOutput", "argsMatch")
	if m := f["minimums"]; m != nil && m.Kind == yaml.MappingNode {
		// The decoded map forgets the YAML order; the grader reports the checks in it.
		g.Params["minimums_order"] = mappingKeys(m)
	}
	if g.Type == "token-usage" && g.Params["max_total"] == nil && g.Params["max_input"] == nil && g.Params["max_output"] == nil &&
		g.Params["maxTotal"] == nil && g.Params["maxInput"] == nil && g.Params["maxOutput"] == nil {
		r.errorf(keyNode(f["type"], "type"), "token-usage needs max_total, max_input or max_output")
	}
}

// compositeGrader reads a composite's member graders and how their scores combine.
func (r *reader) compositeGrader(sc scope, f map[string]*yaml.Node, g *Grader) {
	members := f["assertions"]
	if members == nil {
		members = f["evaluators"]
	}
	if members == nil {
		r.errorf(f["type"], "composite grader needs assertions")
	} else {
		g.Members = r.graders(sc, members, "composite.assertions")
	}
	if a, ok := f["aggregator"]; ok {
		g.Params = map[string]any{"aggregator": r.aggregator(sc, a)}
	}
}

// textGrader reads the value of the graders that match text (contains, equals, regex, ...);
// a regex that does not compile is caught here rather than on every answer.
func (r *reader) textGrader(sc scope, f map[string]*yaml.Node, g *Grader) {
	if v, ok := f["value"]; ok {
		s, _ := r.str(sc, v, g.Type+".value")
		g.Value = s
	}
	g.Flags = r.optStr(sc, f, "flags", "grader")
	if g.Type == "regex" {
		if s, ok := g.Value.(string); ok {
			if _, err := regexp.Compile(s); err != nil {
				r.errorf(f["value"], "regex does not compile: %v", err)
			}
		}
	}
}

// rubricGrader reads rubrics / llm-grader / llm-rubric criteria and prompts.
func (r *reader) rubricGrader(sc scope, f map[string]*yaml.Node, g *Grader, rawType string) {
	for _, k := range []string{"criteria", "rubrics"} {
		if c, ok := f[k]; ok {
			g.Criteria = r.criteria(sc, c, k, false)
		}
	}
	if v, ok := f["value"]; ok { // promptfoo llm-rubric
		v = resolve(v)
		if v.Kind == yaml.ScalarNode {
			s, _ := r.str(sc, v, "value")
			if strings.TrimSpace(s) == "" {
				r.errorf(v, "%s value is blank: the judge would grade nothing", rawType)
			}
			g.Criteria = []*Criterion{{ID: "rubric-1", Outcome: s, Weight: 1, Required: true, Pos: r.pos(v)}}
		} else {
			g.Criteria = r.criteria(sc, v, "value", false)
		}
	}
	if p, ok := f["prompt"]; ok && p.Kind == yaml.MappingNode {
		r.promptCommand(sc, p, g)
	} else if ok {
		s, _ := r.str(sc, p, "prompt")
		if strings.HasPrefix(s, "file://") {
			if path, ok := r.path(p, s); ok {
				data, err := r.readFile(path)
				if err != nil {
					r.errorf(p, "prompt %s: %v", s, err)
				}
				s = string(data)
			}
		}
		g.Prompt, g.PromptIsTemplate = s, placeholder.MatchString(s)
	}
	if g.Type == "rubrics" && len(g.Criteria) == 0 && g.Prompt == "" && g.PromptCommand == nil {
		r.errorf(f["type"], "%s grader has no criteria", rawType)
	}
}

// params decodes the named fields into plain values for the grader package.
func (r *reader) params(sc scope, f map[string]*yaml.Node, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := f[k]; ok {
			out[k] = r.value(sc, v)
		}
	}
	return out
}

// command reads an argv list, or a string run by the shell.
func (r *reader) command(sc scope, n *yaml.Node, what string) []string {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		s, _ := r.str(sc, n, what)
		return []string{"sh", "-c", s}
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		r.errorf(n, "%s must be a string or a non-empty list, not %s", what, kindOf(n))
		return nil
	}
	var argv []string
	for _, c := range n.Content {
		s, _ := r.str(sc, c, what+"[]")
		argv = append(argv, s)
	}
	// A script named relative to the eval file is a reference: changing it re-runs the suite.
	// evalgate does not read it (the command does), so a link elsewhere is no error.
	for _, a := range argv[min(1, len(argv)-1):] {
		if p := filepath.Join(r.dir, a); !filepath.IsAbs(a) {
			if fi, err := r.stat(p); err == nil && !fi.IsDir() {
				r.refs[r.rel(p)] = true
			}
		}
	}
	return argv
}
