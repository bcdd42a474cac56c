package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/suite"
)

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
	fs.StringVar(&f.prices, "prices", "", "YAML price table overriding the built-in one (default: "+pipeline.DefaultPrices+" when present)")
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

// options opens the cache and reads the prices for a run rooted at root (see
// pipeline.ModelOptions).
func (f *llmFlags) options(ctx context.Context, root string, e env) (provider.Options, error) {
	opts, err := pipeline.ModelOptions(ctx, pipeline.Models{Prices: f.prices, CacheDir: f.cacheDir, NoCache: f.noCache}, root, e.getenv, warner(e))
	if err != nil {
		return opts, usageErr("%w", err)
	}
	return opts, nil
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
