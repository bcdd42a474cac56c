package price_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/price"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	tab := price.Builtin()
	tests := []struct {
		model string
		input float64
		ok    bool
	}{
		{"gpt-4o", 2.50, true},
		{"gpt-4o-2024-08-06", 2.50, true},
		{"gpt-4o-mini", 0.15, true},
		{"gpt-4o-mini-2024-07-18", 0.15, true},
		{"GPT-4.1", 2, true},
		{"claude-sonnet-4-5-20250929", 3, true},
		{"claude-haiku-4-5", 1, true},
		{"my-azure-deployment", 0, false},
		{"gpt-4", 0, false},
	}
	for _, tt := range tests {
		p, ok := tab.Lookup(tt.model)
		if ok != tt.ok || p.Input != tt.input {
			t.Errorf("Lookup(%q) = %+v, %v; want input %v, %v", tt.model, p, ok, tt.input, tt.ok)
		}
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	p := price.Price{Input: 2.5, Output: 10, CachedInput: 1.25}
	// 1000 fresh input, 1000 cached input, 500 output.
	got := p.Cost(llm.Usage{InputTokens: 2000, CachedTokens: 1000, OutputTokens: 500})
	want := (1000*2.5 + 1000*1.25 + 500*10) / 1e6
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", got, want)
	}
	if got := (price.Price{Input: 1, Output: 2}).Cost(llm.Usage{InputTokens: 1e6, CachedTokens: 1e6}); got != 1 {
		t.Errorf("cached tokens without a cached price cost %v, want the input price 1", got)
	}
}

func TestLoadOverrides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "prices.yaml")
	os.WriteFile(good, []byte("models:\n  gpt-4o: {input: 1, output: 2}\n  my-deployment: {input: 3, output: 4, cached_input: 0.5}\n"), 0o644)
	over, err := price.Load(good)
	if err != nil {
		t.Fatal(err)
	}
	tab := price.Builtin().With(over)
	if p, _ := tab.Lookup("gpt-4o"); p.Input != 1 {
		t.Errorf("gpt-4o not overridden: %+v", p)
	}
	if p, ok := tab.Lookup("my-deployment"); !ok || p.CachedInput != 0.5 {
		t.Errorf("my-deployment = %+v %v", p, ok)
	}
	if p, _ := tab.Lookup("gpt-4o-mini"); p.Input != 0.15 {
		t.Errorf("untouched entry changed: %+v", p)
	}
	for name, body := range map[string]string{
		"typo.yaml":     "models:\n  gpt-4o: {inptu: 1}\n",
		"negative.yaml": "models:\n  gpt-4o: {input: -1, output: 2}\n",
		"notyaml.yaml":  "models: [\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := price.Load(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
