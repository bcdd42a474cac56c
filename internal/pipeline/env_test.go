package pipeline

import (
	"slices"
	"testing"

	"github.com/evalgate/evalgate/internal/providers"
)

// TestEveryVendorKeyIsMasked: every vendor's key variable is masked even when the
// environment cannot be listed.
func TestEveryVendorKeyIsMasked(t *testing.T) {
	t.Parallel()
	vars := map[string]string{}
	for _, v := range providers.KeyVars() {
		vars[v] = "secret-" + v
	}
	creds := Credentials(nil, func(k string) string { return vars[k] })
	for _, v := range providers.KeyVars() {
		if !slices.Contains(creds, "secret-"+v) {
			t.Errorf("%s is not masked: credentials = %q", v, creds)
		}
	}
}
