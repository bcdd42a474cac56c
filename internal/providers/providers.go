// Package providers is the table of the providers a targets.yaml entry may name: for each,
// the keys its entries may have and, for a model vendor, how evalgate reaches its API. It is
// the one place a provider is declared. The loader (internal/suite) validates entries against
// it, the model clients (internal/llm/provider) build vendors from it and internal/resolve
// decides from it what can be a target or a judge, so adding a vendor that speaks a wire
// evalgate has a client for (OpenAI's, Anthropic's) is one row in table.go.
//
// It imports no package of ours: the loader may not import the model clients.
package providers

import (
	"net/url"
	"slices"
)

// Wire is a vendor API evalgate has a client for (internal/llm/provider maps each to one).
type Wire string

const (
	// OpenAI is OpenAI's chat-completions and Responses API, which OpenAI-compatible vendors
	// and servers speak too.
	OpenAI Wire = "openai"
	// Azure is OpenAI's API on Azure: deployment URLs with a dated api-version, or Azure's
	// v1 API.
	Azure Wire = "azure"
	// Anthropic is Anthropic's messages API.
	Anthropic Wire = "anthropic"
)

// Provider is one provider a targets.yaml entry may name.
type Provider struct {
	// Name is what provider: says (lower case).
	Name string
	// Aliases are other names AgentV accepts for it (azure-openai for azure).
	Aliases []string
	// Keys are the settings its entries may have besides the ones every entry has (name,
	// provider, use_target, grader_target, …): the ones evalgate reads and the ones AgentV
	// documents, so that AgentV files load unchanged.
	Keys []string
	// Files are the keys that name files, which must lie inside the repository.
	Files []string
	// Vendor is set for a model vendor: an HTTP API that answers prompts with text.
	Vendor *Vendor
}

// Vendor says how to reach a model vendor's API. Environment defaults follow the vendor's
// SDK; a default applies only to a setting the entry does not write.
type Vendor struct {
	// Wire is the API it speaks; "" when evalgate has no client for it yet (AgentV's
	// gemini): its entries load, but cannot run or grade.
	Wire Wire
	// KeyVar is the environment variable api_key defaults to.
	KeyVar string
	// BaseURLVar is the variable base_url (alias endpoint) defaults to, then BaseURL; with
	// neither, the entry must name one.
	BaseURLVar, BaseURL string
	// ModelKeys are the entry's keys that name the model, first set wins (nil:
	// defaultModelKeys); ModelVars are the variables the model defaults to, in order.
	ModelKeys, ModelVars []string
	// VersionVar, then Version, are version's (alias api_version) defaults.
	VersionVar, Version string
	// Format is the default api_format of an OpenAI-style wire: chat or responses.
	Format string
}

// defaultModelKeys are the keys naming a vendor's model, first set wins: AgentV's
// `model ?? deployment ?? variant` (providers/targets.ts).
var defaultModelKeys = []string{"model", "deployment", "variant"}

// Models are the keys that name v's model, in the order AgentV reads them.
func (v *Vendor) Models() []string {
	if len(v.ModelKeys) > 0 {
		return v.ModelKeys
	}
	return defaultModelKeys
}

// Lookup returns the provider named name (not an alias: see Canonical).
func Lookup(name string) (Provider, bool) {
	i := slices.IndexFunc(table, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		return Provider{}, false
	}
	return table[i], true
}

// Canonical maps an alias onto the provider's name; other names are returned unchanged.
func Canonical(name string) string {
	for _, p := range table {
		if slices.Contains(p.Aliases, name) {
			return p.Name
		}
	}
	return name
}

// All returns every provider, in table order. The slices they hold are shared: callers must
// not modify them.
func All() []Provider {
	return slices.Clone(table)
}

// KeyVars are the environment variables vendor API keys default to.
func KeyVars() []string {
	return vendorValues(func(v *Vendor) string { return v.KeyVar })
}

// BaseURLVars are the environment variables vendor base URLs default to: hosts a workflow's
// own environment names.
func BaseURLVars() []string {
	return vendorValues(func(v *Vendor) string { return v.BaseURLVar })
}

// EnvVars are every environment variable a vendor's settings default to: keys, base URLs,
// models and versions.
func EnvVars() []string {
	var out []string
	for _, p := range table {
		if v := p.Vendor; v != nil {
			for _, s := range append([]string{v.KeyVar, v.BaseURLVar, v.VersionVar}, v.ModelVars...) {
				if s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// defaultHosts are the hosts of the vendors' default base URLs: where a key goes when
// neither the entry nor the environment names one.
func defaultHosts() []string {
	return vendorValues(func(v *Vendor) string { return v.DefaultHost() })
}

// DefaultHost is the host of v's default base URL ("" when it has none).
func (v *Vendor) DefaultHost() string {
	if u, err := url.Parse(v.BaseURL); err == nil {
		return u.Hostname()
	}
	return ""
}

// vendorValues collects f over the vendors, without empties or repeats.
func vendorValues(f func(*Vendor) string) []string {
	var out []string
	for _, p := range table {
		if p.Vendor == nil {
			continue
		}
		if s := f(p.Vendor); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
