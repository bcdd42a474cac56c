package resolve

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/llmtest"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/providers"
	"github.com/evalgate/evalgate/internal/suite"
)

// TestEveryProviderIsOneRow walks the table of providers: a row is all it takes for an
// entry of that provider (or an alias) to load without a diagnostic, and for a model vendor
// with a wire to be built by provider.New, answer through the fake vendor with the key its
// variable holds, run as a target and grade as a judge. Providers evalgate does not run load
// and are refused as targets and judges.
func TestEveryProviderIsOneRow(t *testing.T) {
	t.Parallel()
	for _, p := range providers.All() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			runs := p.Vendor != nil && p.Vendor.Wire != ""
			srv := llmtest.New(t)
			settings := map[string]string{}
			if p.Vendor != nil {
				settings = map[string]string{"model": "m-" + p.Name, "base_url": srv.URL}
			}
			for _, name := range append([]string{p.Name}, p.Aliases...) {
				if cfg := loadEntry(t, name, settings); cfg.Provider != p.Name {
					t.Errorf("provider: %s loads as %q, want %q", name, cfg.Provider, p.Name)
				}
			}
			cfg := loadEntry(t, p.Name, settings)
			if got, want := canGrade(p.Name), runs || p.Name == "mock"; got != want {
				t.Errorf("canGrade = %v, want %v", got, want)
			}
			if p.Vendor != nil && p.Vendor.Wire != "" && !provider.Supported(p.Name) {
				t.Fatalf("wire %q has no client in internal/llm/provider", p.Vendor.Wire)
			}
			if !runs {
				if p.Vendor != nil {
					if _, err := newTarget(cfg, provider.Options{}); err == nil || !strings.Contains(err.Error(), "is not supported as a target") {
						t.Errorf("newTarget: %v, want it refused", err)
					}
				}
				if p.Name != "mock" {
					if _, err := newJudge(cfg, provider.Options{}, 0); err == nil || !strings.Contains(err.Error(), "cannot grade") {
						t.Errorf("newJudge: %v, want it refused", err)
					}
				}
				return
			}
			checkVendor(t, p, cfg, srv)
		})
	}
}

// checkVendor builds a runnable vendor's judge and target from the entry and calls the
// judge's client: the key comes from the vendor's variable, the request from its wire.
func checkVendor(t *testing.T, p providers.Provider, cfg *suite.TargetConfig, srv *llmtest.Server) {
	t.Helper()
	key := "sk-" + p.Name
	opts := provider.Options{HTTPClient: srv.Client(), Getenv: func(v string) string {
		if v == p.Vendor.KeyVar {
			return key
		}
		return ""
	}}
	j, err := newJudge(cfg, opts, 0)
	if err != nil {
		t.Fatalf("newJudge: %v", err)
	}
	resp, err := j.Client.Complete(t.Context(), &llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if err != nil || resp.Text != "ok" {
		t.Fatalf("judge call: %+v, %v", resp, err)
	}
	calls := srv.Calls()
	wantAPI := p.Vendor.Format
	if p.Vendor.Wire == providers.Anthropic {
		wantAPI = "anthropic"
	}
	if len(calls) != 1 {
		t.Fatalf("the fake vendor saw %d call(s), want one", len(calls))
	}
	if calls[0].API != wantAPI || calls[0].Model != "m-"+p.Name || !sentKey(calls[0], key) {
		t.Errorf("the fake vendor saw %+v; want a %s call for model m-%s with key %s", calls[0], wantAPI, p.Name, key)
	}
	if tg, err := newTarget(cfg, opts); err != nil || tg == nil {
		t.Errorf("newTarget: %v, %v", tg, err)
	}
	bare := &suite.TargetConfig{Name: "t", Provider: p.Name, Settings: map[string]any{"model": "m"}}
	if _, err := provider.Resolve(bare, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), p.Vendor.KeyVar) {
		t.Errorf("without a key: %v, want the error to name %s", err, p.Vendor.KeyVar)
	}
	if p.Vendor.BaseURL != "" {
		ep, err := provider.Resolve(bare, opts.Getenv)
		if err != nil || !strings.Contains(p.Vendor.BaseURL, ep.Host()) {
			t.Errorf("default host: %v, %v; want the host of %s", ep, err, p.Vendor.BaseURL)
		}
	}
}

func sentKey(r *llmtest.Request, key string) bool {
	for _, vs := range r.Header {
		if slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, key) }) {
			return true
		}
	}
	return false
}

// loadEntry loads a targets.yaml holding one entry of the provider with settings, and fails
// on any diagnostic.
func loadEntry(t *testing.T, name string, settings map[string]string) *suite.TargetConfig {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "targets:\n  - name: t\n    provider: %s\n", name)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(&b, "    %s: %q\n", k, settings[k])
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "targets.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tf, diags := suite.LoadTargetsWith(path, suite.LoadOptions{Root: dir})
	if len(diags) > 0 || tf == nil || len(tf.Targets) != 1 {
		t.Fatalf("provider: %s: %v\n%s", name, diags, b.String())
	}
	return tf.Targets[0]
}
