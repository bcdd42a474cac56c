package suite

// TargetsFile is a parsed targets.yaml.
type TargetsFile struct {
	Path    string
	Targets []*TargetConfig
}

// TargetConfig is one entry of targets.yaml, AgentV field names.
type TargetConfig struct {
	Name     string
	Provider string // normalised: azure-openai → azure, claude-code → claude, …
	// GraderTarget is grader_target (alias judge_target): the judge for tests on this target.
	GraderTarget string
	// UseTarget is use_target: this entry is an alias of another target.
	UseTarget string
	Workers   int
	// Settings are all the entry's fields with ${{ VAR }} interpolated, decoded into plain Go
	// values; each provider reads its own keys from here.
	Settings map[string]any
	// Dir is the directory of the targets file: relative paths in Settings resolve against it.
	Dir string
	Pos Pos
}

// Lookup returns the target with the given name, following use_target aliases.
func (f *TargetsFile) Lookup(name string) (*TargetConfig, bool) {
	seen := map[string]bool{}
	for !seen[name] {
		seen[name] = true
		for _, t := range f.Targets {
			if t.Name == name {
				if t.UseTarget == "" {
					return t, true
				}
				name = t.UseTarget
				break
			}
		}
	}
	return nil, false
}
