package provider

import (
	"testing"

	"github.com/evalgate/evalgate/internal/providers"
)

// TestCacheURLKeepsOldKeys: an Anthropic endpoint on the vendor's default host keys its cached
// replies as it did before that default was written out (""); any other endpoint keys by its
// URL.
func TestCacheURLKeepsOldKeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ep   Endpoint
		want string
	}{
		{Endpoint{Provider: "anthropic", Wire: providers.Anthropic, BaseURL: "https://api.anthropic.com"}, ""},
		{Endpoint{Provider: "anthropic", Wire: providers.Anthropic, BaseURL: "http://proxy.example"}, "http://proxy.example"},
		{Endpoint{Provider: "openai", Wire: providers.OpenAI, BaseURL: "https://api.openai.com/v1"}, "https://api.openai.com/v1"},
	} {
		if got := tt.ep.cacheURL(); got != tt.want {
			t.Errorf("%s %s: cache URL %q, want %q", tt.ep.Provider, tt.ep.BaseURL, got, tt.want)
		}
	}
}
