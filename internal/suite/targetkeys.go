package suite

import (
	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/providers"
)

// The keys a targets.yaml entry may have: the ones every entry has, and its provider's
// (internal/providers, the table of providers). A key that is a typo of one of them is an
// error (grader_taget would make the model grade itself, base_ur would send the key to the
// vendor's default host); other unknown keys warn.
var (
	targetBaseKeys = []string{"name", "provider", "use_target", "grader_target", "judge_target", "workers",
		"subagent_mode_allowed", "fallback_targets", "provider_batching", "$schema"}
	// nestedTargetKeys are the keys of the mappings evalgate reads inside an entry.
	nestedTargetKeys = map[string][]string{
		"pricing":     {"input", "output", "cached_input"},
		"healthcheck": {"url", "command", "command_template", "cwd", "timeout_seconds"},
		"usage":       {"input", "output"},
	}
)

// targetKeys checks an entry's keys against what its provider reads. For a provider evalgate
// does not know, only typos of the common keys are reported.
func (r *targetsReader) targetKeys(n *yaml.Node, t *TargetConfig) {
	what := "target " + t.Name
	p, knownProvider := providers.Lookup(t.Provider)
	known := append(append([]string(nil), targetBaseKeys...), p.Keys...)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if contains(known, k.Value) {
			if sub, ok := nestedTargetKeys[k.Value]; ok && knownProvider {
				if v := resolve(n.Content[i+1]); v != nil && v.Kind == yaml.MappingNode {
					r.fields(v, what+" "+k.Value, sub...)
				}
			}
			continue
		}
		if !knownProvider && t.UseTarget == "" {
			if s := suggest(k.Value, known); s == "" || !isTypo(k.Value, s) {
				continue
			}
		}
		r.unknownKey(k, what, known)
	}
}
