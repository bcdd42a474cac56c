package suite

import (
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

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

// targetsNames are the files FindTargets looks for, in order, in each directory.
var targetsNames = []string{"targets.yaml", "targets.yml", filepath.Join(".agentv", "targets.yaml"), filepath.Join(".agentv", "targets.yml")}

// FindTargets walks up from the eval file's directory to root and returns the first targets
// file found, or "".
func FindTargets(evalPath, root string) string {
	dir, err := filepath.Abs(filepath.Dir(evalPath))
	if err != nil {
		return ""
	}
	if root, err = filepath.Abs(root); err != nil {
		return ""
	}
	for {
		for _, n := range targetsNames {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
		if dir == root || dir == filepath.Dir(dir) {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

// providerAliases map AgentV's provider aliases onto the names evalgate dispatches on.
var providerAliases = map[string]string{
	"azure-openai": "azure", "google": "gemini", "google-gemini": "gemini", "claude-code": "claude",
	"codex-cli": "codex", "copilot": "copilot-cli",
}

// LoadTargets parses a targets.yaml: a targets: list of entries with name and provider, every
// field kept in Settings with ${{ VAR }} interpolated.
func LoadTargets(path string, getenv func(string) string) (*TargetsFile, Diagnostics) {
	r := newReader(path, LoadOptions{Getenv: getenv})
	data, err := r.readFile(path)
	if err != nil {
		r.reportf("%v", err)
		return nil, r.diags
	}
	root := r.parseYAML(data)
	if root == nil {
		return nil, r.diags
	}
	f, ok := r.fields(root, "targets file", "$schema", "targets")
	if !ok {
		return nil, r.diags
	}
	list := resolve(f["targets"])
	if list == nil || list.Kind != yaml.SequenceNode {
		r.errorf(root, "targets file needs a targets: list")
		return nil, r.diags
	}
	abs, _ := filepath.Abs(path)
	tf := &TargetsFile{Path: abs}
	seen := map[string]bool{}
	for _, n := range list.Content {
		settings, ok := r.value(n).(map[string]any)
		if !ok {
			r.errorf(n, "a target must be a mapping, not %s", kindOf(resolve(n)))
			continue
		}
		t := &TargetConfig{Settings: settings, Dir: filepath.Dir(abs), Pos: r.pos(n)}
		t.Name, _ = settings["name"].(string)
		t.Provider, _ = settings["provider"].(string)
		t.Provider = strings.ToLower(t.Provider)
		if a, ok := providerAliases[t.Provider]; ok {
			t.Provider = a
		}
		t.GraderTarget, _ = settings["grader_target"].(string)
		if t.GraderTarget == "" {
			t.GraderTarget, _ = settings["judge_target"].(string)
		}
		t.UseTarget, _ = settings["use_target"].(string)
		if w, ok := settings["workers"].(int); ok {
			t.Workers = w
		}
		switch {
		case t.Name == "":
			r.errorf(n, "target has no name")
			continue
		case seen[t.Name]:
			r.errorf(n, "duplicate target name %q", t.Name)
			continue
		case t.Provider == "" && t.UseTarget == "":
			r.errorf(n, "target %s has no provider", t.Name)
			continue
		}
		seen[t.Name] = true
		tf.Targets = append(tf.Targets, t)
	}
	return tf, r.diags
}
