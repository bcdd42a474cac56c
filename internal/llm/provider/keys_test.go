package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
)

// TestMissingKeyNamesTheVariable: a missing key says which environment variable to set, and a
// key (or URL) written as an unset ${{ VAR }} is an error, never a fallback to the vendor's
// variable: that would send another key, or the key to another host.
func TestMissingKeyNamesTheVariable(t *testing.T) {
	t.Parallel()
	vendorEnv := map[string]string{"OPENAI_API_KEY": "sk-default", "OPENAI_BASE_URL": "http://proxy/v1",
		"ANTHROPIC_API_KEY": "sk-ant", "AZURE_OPENAI_API_KEY": "az", "AZURE_OPENAI_ENDPOINT": "https://r.openai.azure.com"}
	tests := []struct {
		name     string
		provider string
		settings map[string]any
		env      map[string]string
		want     string
	}{
		{"openai", "openai", map[string]any{"model": "m"}, nil, "api_key is not set: set the OPENAI_API_KEY environment variable"},
		{"azure", "azure", map[string]any{"model": "m", "endpoint": "https://r"}, nil, "set the AZURE_OPENAI_API_KEY environment variable"},
		{"anthropic", "anthropic", map[string]any{"model": "m"}, nil, "set the ANTHROPIC_API_KEY environment variable"},
		{"unset explicit key does not fall back", "openai", map[string]any{"model": "m", "api_key": ""}, vendorEnv,
			"api_key is empty: is the variable its ${{ }} names set? (a written api_key never falls back to OPENAI_API_KEY)"},
		{"unset explicit anthropic key", "anthropic", map[string]any{"model": "m", "api_key": ""}, vendorEnv, "never falls back to ANTHROPIC_API_KEY"},
		{"unset explicit base_url does not fall back", "openai", map[string]any{"model": "m", "api_key": "k", "base_url": ""}, vendorEnv,
			"base_url is empty"},
		{"unset explicit azure endpoint", "azure", map[string]any{"model": "m", "api_key": "k", "endpoint": ""}, vendorEnv, "never falls back to AZURE_OPENAI_ENDPOINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ep, err := provider.Resolve(cfg(tt.provider, tt.settings), env(tt.env))
			if err == nil {
				t.Fatalf("resolved %+v", ep)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "targets.yaml:3: target t") {
				t.Fatalf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestUnsetReferenceFromTargetsFile goes through the targets.yaml reader: `api_key:
// ${{ MY_KEY }}` with MY_KEY unset must not use OPENAI_API_KEY.
func TestUnsetReferenceFromTargetsFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "targets.yaml")
	yaml := "targets:\n  - name: gpt\n    provider: openai\n    model: gpt-4o\n    api_key: ${{ MY_KEY }}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := env(map[string]string{"OPENAI_API_KEY": "sk-default"})
	tf, diags := suite.LoadTargetsWith(path, suite.LoadOptions{Getenv: getenv})
	if tf == nil || len(tf.Targets) != 1 {
		t.Fatalf("load: %v", diags)
	}
	ep, err := provider.Resolve(tf.Targets[0], getenv)
	if err == nil {
		t.Fatalf("api_key resolved to %q", ep.APIKey)
	}
	if !strings.Contains(err.Error(), "target gpt (openai): api_key: ${{ MY_KEY }} is not set (set the MY_KEY environment variable)") {
		t.Fatalf("error %q", err)
	}
	set := env(map[string]string{"OPENAI_API_KEY": "sk-default", "MY_KEY": "sk-mine"})
	tf, _ = suite.LoadTargetsWith(path, suite.LoadOptions{Getenv: set})
	if ep, err := provider.Resolve(tf.Targets[0], set); err != nil || ep.APIKey != "sk-mine" {
		t.Fatalf("with MY_KEY set: %+v, %v", ep, err)
	}
}

func TestAllowHost(t *testing.T) {
	t.Parallel()
	allow := func(h, _ string) error {
		if h != "api.openai.com" && h != "api.anthropic.com" {
			return fmt.Errorf("host %s is not allowed", h)
		}
		return nil
	}
	for _, tt := range []struct {
		provider string
		settings map[string]any
		wantErr  string
	}{
		{"openai", map[string]any{"model": "m", "api_key": "k"}, ""},
		{"anthropic", map[string]any{"model": "m", "api_key": "k"}, ""},
		{"openai", map[string]any{"model": "m", "api_key": "k", "base_url": "https://evil.example/v1"}, "host evil.example is not allowed"},
	} {
		cfg := &suite.TargetConfig{Name: "t", Provider: tt.provider, Settings: tt.settings}
		_, err := provider.New(cfg, provider.Options{AllowHost: allow})
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s %v: err %v, want %q", tt.provider, tt.settings, err, tt.wantErr)
		}
	}
}
