// Package price turns token counts into US dollars: a built-in table of list prices per
// million tokens, which a prices file (or a target's own `pricing:`) overrides.
package price

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/llm"
)

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	Input  float64 `yaml:"input" json:"input"`
	Output float64 `yaml:"output" json:"output"`
	// CachedInput is the price of prompt-cache hits; 0 = same as Input.
	CachedInput float64 `yaml:"cached_input" json:"cached_input,omitempty"`
}

// Cost prices one call's usage.
func (p Price) Cost(u llm.Usage) float64 {
	cached := min(u.CachedTokens, u.InputTokens)
	ci := p.CachedInput
	if ci == 0 {
		ci = p.Input
	}
	return (float64(u.InputTokens-cached)*p.Input + float64(cached)*ci + float64(u.OutputTokens)*p.Output) / 1e6
}

// Table maps model names (or name prefixes) to prices.
type Table map[string]Price

// Builtin is the list-price table shipped with this release (USD per million tokens, as
// published by the vendors in November 2026). Prices change: override them with a prices file.
func Builtin() Table {
	return Table{
		"gpt-5":             {Input: 1.25, Output: 10, CachedInput: 0.125},
		"gpt-5-mini":        {Input: 0.25, Output: 2, CachedInput: 0.025},
		"gpt-5-nano":        {Input: 0.05, Output: 0.40, CachedInput: 0.005},
		"gpt-4.1":           {Input: 2, Output: 8, CachedInput: 0.50},
		"gpt-4.1-mini":      {Input: 0.40, Output: 1.60, CachedInput: 0.10},
		"gpt-4.1-nano":      {Input: 0.10, Output: 0.40, CachedInput: 0.025},
		"gpt-4o":            {Input: 2.50, Output: 10, CachedInput: 1.25},
		"gpt-4o-mini":       {Input: 0.15, Output: 0.60, CachedInput: 0.075},
		"o3":                {Input: 2, Output: 8, CachedInput: 0.50},
		"o4-mini":           {Input: 1.10, Output: 4.40, CachedInput: 0.275},
		"claude-opus-4-5":   {Input: 5, Output: 25, CachedInput: 0.50},
		"claude-opus-4-1":   {Input: 15, Output: 75, CachedInput: 1.50},
		"claude-opus-4":     {Input: 15, Output: 75, CachedInput: 1.50},
		"claude-sonnet-4-5": {Input: 3, Output: 15, CachedInput: 0.30},
		"claude-sonnet-4":   {Input: 3, Output: 15, CachedInput: 0.30},
		"claude-haiku-4-5":  {Input: 1, Output: 5, CachedInput: 0.10},
		"claude-3-5-haiku":  {Input: 0.80, Output: 4, CachedInput: 0.08},
	}
}

// Lookup finds a model's price: an exact entry, else the longest entry the name starts with
// followed by "-" (so "gpt-4o-2024-08-06" is priced as gpt-4o, but "gpt-4o-mini" is not).
func (t Table) Lookup(model string) (Price, bool) {
	model = strings.ToLower(model)
	if p, ok := t[model]; ok {
		return p, true
	}
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, n := range names {
		if strings.HasPrefix(model, strings.ToLower(n)+"-") {
			return t[n], true
		}
	}
	return Price{}, false
}

// With returns a table with o's entries replacing t's.
func (t Table) With(o Table) Table {
	out := Table{}
	for k, v := range t {
		out[k] = v
	}
	for k, v := range o {
		out[strings.ToLower(k)] = v
	}
	return out
}

// file is a prices file: `models: {name: {input, output, cached_input}}`.
type file struct {
	Models Table `yaml:"models"`
}

// Load reads a prices file.
func Load(path string) (Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prices: %w", err)
	}
	var f file
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("prices %s: %w", path, err)
	}
	for name, p := range f.Models {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 {
			return nil, fmt.Errorf("prices %s: %s: prices must not be negative", path, name)
		}
	}
	return f.Models, nil
}

// Client sets CostUSD on every reply from Next that made a call.
type Client struct {
	Next  llm.Client
	Price Price
}

// Complete forwards req and prices the reply.
func (c *Client) Complete(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	resp, err := c.Next.Complete(ctx, req)
	if err != nil || resp.Cached {
		return resp, err
	}
	resp.CostUSD = c.Price.Cost(resp.Usage)
	return resp, nil
}
