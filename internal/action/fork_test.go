package action

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/providers"
)

// TestVendorHostsAndKeysComeFromTheTable: with allow_fork_code a key goes to every vendor's
// default host and to hosts the workflow's environment names, nowhere else.
func TestVendorHostsAndKeysComeFromTheTable(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"OPENAI_BASE_URL": "https://proxy.corp.example/v1"}
	for _, v := range providers.KeyVars() {
		vars[v] = "secret-" + v
	}
	allow := forkHosts(t.Context(), func(k string) string { return vars[k] }, t.TempDir(), "", nil)
	for _, p := range providers.All() {
		if v := p.Vendor; v != nil && v.DefaultHost() != "" {
			// Each vendor's key to its own host, and a key no vendor owns to any vendor host.
			if err := allow(v.DefaultHost(), "secret-"+v.KeyVar); err != nil {
				t.Errorf("%s's key to %s: %v", p.Name, v.DefaultHost(), err)
			}
			if err := allow(v.DefaultHost(), "sk-own"); err != nil {
				t.Errorf("a key of the repository's own to %s: %v", v.DefaultHost(), err)
			}
		}
	}
	// The workflow's own hosts take any key.
	for _, h := range []string{"proxy.corp.example", "PROXY.CORP.EXAMPLE"} {
		if err := allow(h, "secret-ANTHROPIC_API_KEY"); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	if err := allow("evil.example", "sk-own"); err == nil {
		t.Error("evil.example: allowed")
	}
	// One vendor's key never goes to another vendor's (or a proxy's) default host.
	if err := allow("openrouter.ai", "secret-OPENAI_API_KEY"); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("OPENAI_API_KEY to openrouter.ai: %v, want a refusal naming the key", err)
	}
	// A vendor without a default host (Azure) sends its key only where it is configured.
	if err := allow("api.openai.com", "secret-AZURE_OPENAI_API_KEY"); err == nil {
		t.Error("AZURE_OPENAI_API_KEY to api.openai.com: allowed")
	}
	if err := allow("api.anthropic.com", "secret-OPENAI_API_KEY"); err == nil {
		t.Error("OPENAI_API_KEY to api.anthropic.com: allowed")
	}
}
