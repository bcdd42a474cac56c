package suite

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// TargetsFile is a parsed targets.yaml.
type TargetsFile struct {
	Path    string
	Targets []*TargetConfig
	// Unresolved are the entries left out because the environment lacks what they name (a
	// use_target of an unset ${{ VAR }}): the name and the error, so a reference to one says
	// why rather than "not defined", and validate can tell the file's mistakes from the
	// environment's.
	Unresolved map[string]string
	// secrets are the values interpolated into credential fields.
	secrets []string
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
	// Root is the repository root: files named in Settings must be read inside it (fsroot.ReadFile).
	Root string
	// Unset names, per setting (a dotted path for nested keys: "api_key", "env.GH_TOKEN"), the
	// ${{ VAR }} it referenced that was unset or empty. Such a setting reads as "", and must
	// not silently fall back to a vendor default.
	Unset map[string]string
	// Reads names, per setting (dotted path as in Unset), the variables its ${{ VAR }}s read.
	Reads map[string][]string
	Pos   Pos
	// keyPos are the positions of the entry's keys.
	keyPos map[string]Pos
}

// PosOf is where the entry writes key (the entry's own position when it does not).
func (t *TargetConfig) PosOf(key string) Pos {
	if p, ok := t.keyPos[key]; ok {
		return p
	}
	return t.Pos
}

// Secrets are the values interpolated into credential fields (api_key, tokens, env values),
// and the values written in credential fields: the publisher
// masks and scrubs them. Values shorter than 4 bytes are left out: scrubbing them would
// garble every text, and no real credential is that short.
func (f *TargetsFile) Secrets() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range f.secrets {
		if len(s) >= 4 && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
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
// file found, or "". A link is returned as found: loading it checks where it leads.
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
			if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
		if dir == root || dir == filepath.Dir(dir) {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

// LoadTargetsWith parses a targets.yaml: a targets: list of entries with name and provider,
// every field kept in Settings with ${{ VAR }} interpolated. The file, and the files its
// entries name (mock replies, replay outputs), must lie inside opts.Root ("" = fsroot.Default),
// symbolic links included. Credential-looking variables may be interpolated only into
// credential fields; a key that is a typo of one the provider reads is an error.
func LoadTargetsWith(path string, opts LoadOptions) (tf *TargetsFile, ds Diagnostics) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if opts.Root == "" {
		opts.Root = fsroot.Default(filepath.Dir(abs))
	}
	r := newTargetsReader(path, opts)
	defer func() {
		if p := recover(); p != nil {
			r.panicked(p)
			tf, ds = nil, r.diags
		}
		r.done(ds)
	}()
	return r.read(abs), r.diags
}

// Vendor is the entry as a model client reads it (internal/llm/provider.Entry): plain values,
// so the clients need not import the suite model.
func (t *TargetConfig) Vendor() (name, provider, pos string, settings map[string]any, unset map[string]string) {
	return t.Name, t.Provider, t.Pos.String(), t.Settings, t.Unset
}
