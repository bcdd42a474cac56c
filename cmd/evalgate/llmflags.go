package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/cache"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
)

// defaultPrices is the prices file read, when present, relative to the repository root.
const defaultPrices = ".evalgate/prices.yaml"

// llmFlags are the run flags about model calls: cache, prices, budget, judge sampling, trials.
type llmFlags struct {
	cacheDir     string
	noCache      bool
	prices       string
	budgetUSD    float64
	judgeSamples int
	trials       int
	maxTrials    int
}

func (f *llmFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.cacheDir, "cache-dir", "", "cache of judge and temperature-0 target replies, outside the repository (default $XDG_CACHE_HOME/evalgate, else ~/.cache/evalgate)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the reply cache")
	fs.StringVar(&f.prices, "prices", "", "YAML price table overriding the built-in one (default: "+defaultPrices+" when present)")
	fs.Float64Var(&f.budgetUSD, "budget-usd", 0, "stop starting tests once the run has spent this many US dollars (0 = no limit)")
	fs.IntVar(&f.judgeSamples, "judge-samples", 0, "ask the judge this many times per grader and report agreement (a grader's samples: wins)")
	fs.IntVar(&f.trials, "trials", 0, "run each test this many times and combine them by the suite's execution.trials strategy (default pass_at_k); overrides execution.trials.count (0 = the suite's)")
	fs.IntVar(&f.maxTrials, "max-trials", 0, "adaptive trials: after the count, run undecided tests again, up to this many trials each (against --baseline, else the pass threshold); overrides execution.trials.max (0 = the suite's)")
}

func (f *llmFlags) check() error {
	switch {
	case f.budgetUSD < 0:
		return usageErr("--budget-usd must not be negative")
	case f.judgeSamples < 0 || f.judgeSamples > 20:
		return usageErr("--judge-samples must be between 0 and 20")
	case f.trials < 0 || f.trials > suite.MaxTrials:
		return usageErr("--trials must be between 0 and %d", suite.MaxTrials)
	case f.maxTrials < 0 || f.maxTrials > suite.MaxTrials:
		return usageErr("--max-trials must be between 0 and %d", suite.MaxTrials)
	case f.maxTrials > 0 && f.trials > f.maxTrials:
		return usageErr("--max-trials (%d) must not be below --trials (%d)", f.maxTrials, f.trials)
	}
	return nil
}

// options opens the cache and reads the prices for a run rooted at root. A relative cache
// directory is relative to root (the action's workspace; run makes --cache-dir absolute).
func (f *llmFlags) options(ctx context.Context, root string, e env) (provider.Options, error) {
	opts := provider.Options{Limiters: provider.NewLimiters(), Prices: price.Builtin(), Warn: warner(e), HTTPClient: provider.NewHTTPClient()}
	path, explicit := f.prices, f.prices != ""
	if !explicit {
		path = filepath.Join(root, defaultPrices)
	}
	over, err := price.Load(path)
	switch {
	case err == nil:
		opts.Prices = opts.Prices.With(over)
	case explicit || !errors.Is(err, fs.ErrNotExist):
		return opts, usageErr("%w", err)
	}
	if f.noCache {
		return opts, nil
	}
	// A cache that cannot be used costs money, not correctness: say why and go on.
	if opts.Cache, err = openCache(ctx, f.cacheDir, root, e.getenv, opts.Warn); err != nil {
		opts.Warn(fmt.Sprintf("reply cache disabled: %v", err))
	}
	return opts, nil
}

// cacheKeyEnv names the variable a workflow sets from a repository secret to key the reply
// cache; without it the cache directory's key file is the key.
const cacheKeyEnv = "EVALGATE_CACHE_KEY"

// openCache opens the reply cache at dir ("" = the user's cache directory), refusing one
// whose entries the repository could have supplied. Its key is read now, before any user
// command starts. Entries it finds but does not use are reported through warn.
func openCache(ctx context.Context, dir, root string, getenv func(string) string, warn func(string)) (*cache.Store, error) {
	if dir == "" {
		var err error
		if dir, err = cache.DefaultDir(getenv); err != nil {
			return nil, err
		}
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	if err := cache.CheckDir(ctx, dir, root); err != nil {
		return nil, err
	}
	return cache.Open(dir, cache.Options{Secret: getenv(cacheKeyEnv), OnReject: func(path, reason string) {
		if strings.HasPrefix(reason, "older") {
			// Once, not per entry: every entry of an older evalgate is one.
			warn("reply cache: entries written by an older evalgate are not authenticated; they are recomputed")
			return
		}
		warn(fmt.Sprintf("reply cache: entry %s %s; not used, the model is asked again", path, reason))
	}})
}

// warner prints each distinct warning once.
func warner(e env) func(string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if !seen[msg] {
			seen[msg] = true
			fmt.Fprintf(e.stderr, "evalgate: warning: %s\n", msg)
		}
	}
}
