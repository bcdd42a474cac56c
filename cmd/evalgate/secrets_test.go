package main

import (
	"context"
	"slices"
	"testing"

	"github.com/evalgate/evalgate/internal/providers"
)

// TestVendorHostsAndKeysComeFromTheTable: with allow_fork_code a key goes to every vendor's
// default host and to hosts the workflow's environment names, nowhere else; and every
// vendor's key variable is masked even when the environment cannot be listed.
func TestVendorHostsAndKeysComeFromTheTable(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"OPENAI_BASE_URL": "https://proxy.corp.example/v1"}
	for _, v := range providers.KeyVars() {
		vars[v] = "secret-" + v
	}
	e := env{getenv: func(k string) string { return vars[k] }}
	allow := forkHosts(context.Background(), e, t.TempDir(), "", nil)
	for _, h := range append(providers.DefaultHosts(), "proxy.corp.example", "API.OPENAI.COM") {
		if err := allow(h); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	if err := allow("evil.example"); err == nil {
		t.Error("evil.example: allowed")
	}
	creds := credentials(e)
	for _, v := range providers.KeyVars() {
		if !slices.Contains(creds, "secret-"+v) {
			t.Errorf("%s is not masked: credentials = %q", v, creds)
		}
	}
}
