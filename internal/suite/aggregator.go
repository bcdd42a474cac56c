package suite

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// aggregatorKeys are the settings AgentV 4.42 reads from a composite's aggregator.
var aggregatorKeys = []string{"type", "weights", "threshold", "path", "prompt"}

// aggregator decodes a composite's aggregator for the grader package. An llm-grader prompt
// written file://path is read here, relative to the eval file and inside the root, so the
// grader holds the text; a bare string is the prompt itself (AgentV's rule).
func (r *reader) aggregator(sc scope, n *yaml.Node) any {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return r.value(sc, n) // a type name or a mistake: the grader names what it wants
	}
	f, ok := r.fields(n, "aggregator", aggregatorKeys...)
	if !ok {
		return nil
	}
	agg, _ := r.value(sc, n).(map[string]any)
	p := f["prompt"]
	if p == nil {
		return agg
	}
	s, ok := r.str(sc, p, "aggregator.prompt")
	if !ok {
		return agg
	}
	if !strings.HasPrefix(s, "file://") {
		if !strings.Contains(s, "{{EVALUATOR_RESULTS_JSON}}") {
			msg := "aggregator.prompt has no {{EVALUATOR_RESULTS_JSON}}, so the judge is not shown the member results"
			if !strings.ContainsAny(s, " \n") {
				msg += "; a bare string is the prompt text itself: write file://" + s + " to load the file"
			}
			r.warnf(p, "%s", msg)
		}
		return agg
	}
	path, ok := r.path(p, s)
	if !ok {
		return agg
	}
	data, err := r.readFile(path)
	if err != nil {
		r.errorf(p, "aggregator.prompt %s: %v", s, err)
		return agg
	}
	agg["prompt"] = string(data)
	return agg
}
