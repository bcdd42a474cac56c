package providers

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestTable checks what the readers of the table rely on: one row per name, aliases that
// name one provider, file keys among the keys, and model vendors that can be reached.
func TestTable(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, p := range All() {
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if n != strings.ToLower(n) || n == "" {
				t.Errorf("%s: name %q must be lower case (entries are lowered before the lookup)", p.Name, n)
			}
			if prev, dup := seen[n]; dup {
				t.Errorf("%q names both %s and %s", n, prev, p.Name)
			}
			seen[n] = p.Name
		}
		if got, ok := Lookup(p.Name); !ok || got.Name != p.Name {
			t.Errorf("Lookup(%s) = %v, %v", p.Name, got.Name, ok)
		}
		for _, a := range p.Aliases {
			if Canonical(a) != p.Name {
				t.Errorf("Canonical(%s) = %s, want %s", a, Canonical(a), p.Name)
			}
			if _, ok := Lookup(a); ok {
				t.Errorf("Lookup(%s) found an alias; callers must use Canonical first", a)
			}
		}
		if len(p.Keys) == 0 {
			t.Errorf("%s: no keys", p.Name)
		}
		for _, f := range p.Files {
			if !slices.Contains(p.Keys, f) {
				t.Errorf("%s: file key %s is not one of its keys", p.Name, f)
			}
		}
		if v := p.Vendor; v != nil && v.Wire != "" {
			checkVendor(t, p.Name, v)
		}
	}
	if Canonical("bedrock") != "bedrock" {
		t.Error("Canonical must return an unknown name unchanged")
	}
	if _, ok := Lookup("bedrock"); ok {
		t.Error("Lookup found a provider not in the table")
	}
}

func checkVendor(t *testing.T, name string, v *Vendor) {
	t.Helper()
	if !slices.Contains([]Wire{OpenAI, Azure, Anthropic}, v.Wire) {
		t.Errorf("%s: unknown wire %q", name, v.Wire)
	}
	if v.KeyVar == "" {
		t.Errorf("%s: a vendor needs the variable its key defaults to", name)
	}
	if v.BaseURL == "" && v.BaseURLVar == "" {
		t.Errorf("%s: no default base URL and no variable for one", name)
	}
	if u, err := url.Parse(v.BaseURL); v.BaseURL != "" && (err != nil || u.Scheme != "https" || u.Host == "") {
		t.Errorf("%s: default base URL %q: want an https URL", name, v.BaseURL)
	}
	if v.Wire != Anthropic && v.Format != "chat" && v.Format != "responses" {
		t.Errorf("%s: api_format default %q: want chat or responses", name, v.Format)
	}
}

func TestDerivedLists(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		got, want []string
	}{
		{"KeyVars", KeyVars(), []string{"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY"}},
		{"BaseURLVars", BaseURLVars(), []string{"OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "ANTHROPIC_BASE_URL"}},
		{"DefaultHosts", defaultHosts(), []string{"api.openai.com", "api.anthropic.com"}},
	} {
		for _, w := range tt.want {
			if !slices.Contains(tt.got, w) {
				t.Errorf("%s = %q, want it to hold %s", tt.name, tt.got, w)
			}
		}
		if slices.Contains(tt.got, "") || len(slices.Compact(slices.Sorted(slices.Values(tt.got)))) != len(tt.got) {
			t.Errorf("%s = %q: want no empties or repeats", tt.name, tt.got)
		}
	}
}

func TestEnvVars(t *testing.T) {
	t.Parallel()
	got := EnvVars()
	for _, want := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "ANTHROPIC_API_KEY"} {
		if !slices.Contains(got, want) {
			t.Errorf("EnvVars() = %v, lacks %s", got, want)
		}
	}
	seen := map[string]bool{}
	for _, v := range got {
		if v == "" || seen[v] {
			t.Errorf("EnvVars() = %v: empty or repeated %q", got, v)
		}
		seen[v] = true
	}
}
