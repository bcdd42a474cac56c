// Package provider builds a ready-to-use llm.Client from a targets.yaml entry: the vendor
// client for the wire its provider speaks (internal/providers says which), wrapped in retries
// and the provider's shared limiter, priced, and cached. Judges and LLM targets both get
// their clients here.
package provider

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/evalgate/evalgate/internal/cache"
	"github.com/evalgate/evalgate/internal/llm"
	"github.com/evalgate/evalgate/internal/llm/anthropic"
	"github.com/evalgate/evalgate/internal/llm/limit"
	"github.com/evalgate/evalgate/internal/llm/openai"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/retry"
	"github.com/evalgate/evalgate/internal/providers"
)

// Supported reports whether a provider name is a model vendor this package builds: the
// table of providers gives it a wire this package has a client for.
func Supported(provider string) bool {
	_, err := vendorOf(provider)
	return err == nil
}

// wires builds the client of each wire: the vendor clients this package has.
var wires = map[providers.Wire]func(ep *Endpoint, hc *http.Client, warn func(string)) (llm.Client, error){
	providers.OpenAI:    openAI,
	providers.Azure:     openAI,
	providers.Anthropic: anthropicClient,
}

// vendorOf is a provider's row, when it is a model vendor with a client here.
func vendorOf(name string) (*providers.Vendor, error) {
	p, ok := providers.Lookup(name)
	switch {
	case !ok || p.Vendor == nil:
		return nil, fmt.Errorf("provider %q is not a model vendor", name)
	case wires[p.Vendor.Wire] == nil:
		return nil, fmt.Errorf("provider %q has no client in this version", name)
	}
	return p.Vendor, nil
}

// Entry is a targets.yaml entry as this package reads it; *suite.TargetConfig is one. Plain
// values keep the model clients free of the suite model.
type Entry interface {
	// Vendor returns the entry's name, provider, position ("file:line:col"), settings, and
	// per setting the ${{ VAR }} it referenced that was not set.
	Vendor() (name, provider, pos string, settings map[string]any, unset map[string]string)
}

// entry is an Entry's values.
type entry struct {
	name, provider, pos string
	settings            map[string]any
	unset               map[string]string
}

func read(e Entry) entry {
	var c entry
	c.name, c.provider, c.pos, c.settings, c.unset = e.Vendor()
	return c
}

// Options are what every client shares within a run.
type Options struct {
	Getenv     func(string) string
	HTTPClient *http.Client
	// Cache, when set, serves repeated requests from disk.
	Cache *cache.Store
	// CacheOnly limits caching to the requests it accepts; nil caches every request.
	CacheOnly func(*llm.Request) bool
	// Prices is the price table (built-in plus overrides).
	Prices price.Table
	// Limiters is shared by every client of a run, so targets on one endpoint share limits.
	Limiters *Limiters
	// Warn hears about problems that do not stop the run (no price for a model, a cache
	// entry that could not be written).
	Warn func(string)
	// AllowHost, when set, vets the host an endpoint's API key would be sent to, with the key:
	// an error stops the client from being built (fork code may name any base_url, and put
	// any key in api_key).
	AllowHost func(host, apiKey string) error
}

// Client is a built client and the endpoint it talks to.
type Client struct {
	llm.Client
	Endpoint *Endpoint
}

// New builds the client stack for a target: cache → price → retry+limit → vendor. Errors
// name the target and its position in targets.yaml.
func New(e Entry, opts Options) (*Client, error) {
	cfg := read(e)
	ep, err := Resolve(e, opts.Getenv)
	if err != nil {
		return nil, err
	}
	if opts.AllowHost != nil {
		if err := opts.AllowHost(ep.Host(), ep.APIKey); err != nil {
			return nil, &EntryError{Pos: cfg.pos, Target: cfg.name, Err: err}
		}
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = NewHTTPClient()
	}
	vendor, err := wires[ep.Wire](ep, hc, opts.Warn)
	if err != nil {
		return nil, &EntryError{Pos: cfg.pos, Target: cfg.name, Err: err}
	}
	var c llm.Client = &retry.Client{Next: vendor, Policy: ep.Retry, Limiter: opts.Limiters.get(ep), Provider: ep.Provider, Model: ep.Model}
	p, ok := ep.Price, ep.Price != nil
	if !ok {
		var tp price.Price
		if tp, ok = opts.Prices.Lookup(ep.Model); ok {
			p = &tp
		}
	}
	if ok {
		c = &price.Client{Next: c, Price: *p}
	} else if opts.Warn != nil {
		opts.Warn(fmt.Sprintf("target %s: no price for model %s; its cost shows as $0 (add it to a prices file or set pricing: on the target)", cfg.name, ep.Model))
	}
	if opts.Cache != nil {
		warn := opts.Warn
		c = &cache.LLM{Next: c, Store: opts.Cache, Endpoint: ep.cacheKey(), Only: opts.CacheOnly, OnError: func(err error) {
			if warn != nil {
				warn(err.Error())
			}
		}}
	}
	return &Client{Client: c, Endpoint: ep}, nil
}

func anthropicClient(ep *Endpoint, hc *http.Client, _ func(string)) (llm.Client, error) {
	return anthropic.New(anthropic.Config{Model: ep.Model, APIKey: ep.APIKey, BaseURL: ep.BaseURL, Structured: ep.Structured,
		MaxOutputTokens: ep.MaxOutputTokens, Timeout: ep.Timeout, HTTPClient: hc})
}

// openAI speaks OpenAI's API, on Azure when the endpoint's wire is Azure's.
func openAI(ep *Endpoint, hc *http.Client, warn func(string)) (llm.Client, error) {
	c := openai.Config{Provider: ep.Provider, Model: ep.Model, APIKey: ep.APIKey, BaseURL: ep.BaseURL, Format: ep.Format,
		Structured: ep.Structured, MaxOutputTokens: ep.MaxOutputTokens, Timeout: ep.Timeout, HTTPClient: hc, Warn: warn}
	if ep.Wire == providers.Azure {
		c.Azure, c.BaseURL = true, ep.URL()
		if !ep.azureV1() {
			c.BaseURL, c.AzureEndpoint, c.AzureVersion = "", ep.BaseURL, ep.Version
		}
	}
	return openai.New(c)
}

// NewHTTPClient is the client vendor calls share within a run. Go's default keeps only two
// idle connections per host, so with more workers than that most calls would open (and
// TLS-handshake) a new connection; evalgate keeps one per worker.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
}

// Limiters holds one limiter per endpoint (provider, base URL, model): vendors rate-limit
// per model and account, so a judge and a target on the same model share theirs.
type Limiters struct {
	mu sync.Mutex
	m  map[string]*limit.Limiter
}

// NewLimiters makes an empty registry.
func NewLimiters() *Limiters { return &Limiters{m: map[string]*limit.Limiter{}} }

// get returns the endpoint's limiter, created from the first target that names it.
func (l *Limiters) get(ep *Endpoint) *limit.Limiter {
	if l == nil {
		return limit.New(ep.Limit)
	}
	k := strings.Join([]string{ep.Provider, ep.BaseURL, ep.Model}, "\x00")
	l.mu.Lock()
	defer l.mu.Unlock()
	if lim, ok := l.m[k]; ok {
		return lim
	}
	lim := limit.New(ep.Limit)
	l.m[k] = lim
	return lim
}
