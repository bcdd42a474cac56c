package resolve

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/judge"
	"github.com/evalgate/evalgate/internal/llm"
	llmmock "github.com/evalgate/evalgate/internal/llm/mock"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
	"github.com/evalgate/evalgate/internal/target/cli"
	"github.com/evalgate/evalgate/internal/target/mock"
	"github.com/evalgate/evalgate/internal/target/model"
	"github.com/evalgate/evalgate/internal/target/replay"
)

// This file builds the providers evalgate runs. A model vendor is a row of the table in
// internal/providers, built by internal/llm/provider, which all three functions defer to; a
// vendor added there runs and grades with no change here. evalgate's own targets (mock,
// replay, cli) are built below; every other provider in the table loads but does not run.

// canGrade reports whether a provider can be a judge: it answers prompts with text, so a
// target of it can be its own judge.
func canGrade(name string) bool {
	return name == "mock" || provider.Supported(name)
}

// newTarget builds a target for an entry; opts are the run's shared model-client options.
func newTarget(cfg *suite.TargetConfig, opts provider.Options) (target.Target, error) {
	if provider.Supported(cfg.Provider) {
		// A target's reply is only worth replaying when asking again would give the same
		// answer: temperature 0, set explicitly.
		opts.CacheOnly = func(r *llm.Request) bool { return r.Temperature != nil && *r.Temperature == 0 }
		c, err := provider.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		return model.New(cfg, c, c.Endpoint.Temperature), nil
	}
	switch cfg.Provider {
	case "mock":
		return mock.New(cfg)
	case "replay":
		return replay.New(cfg)
	case "cli":
		return cli.New(cfg)
	}
	return nil, fmt.Errorf("target %s: provider %q is not supported as a target", cfg.Name, cfg.Provider)
}

// newJudge builds the judge for an entry, asking it samples times per grader (0 = once).
func newJudge(cfg *suite.TargetConfig, opts provider.Options, samples int) (*judge.Judge, error) {
	if provider.Supported(cfg.Provider) {
		c, err := provider.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		return &judge.Judge{Client: c, Name: cfg.Name, Temperature: c.Endpoint.Temperature, Samples: samples}, nil
	}
	switch cfg.Provider {
	case "mock":
		c, err := llmmock.New(cfg.Settings, cfg.Dir, llmmock.WithRoot(cfg.Root))
		if err != nil {
			return nil, fmt.Errorf("judge %s: %w", cfg.Name, err)
		}
		return &judge.Judge{Client: c, Name: cfg.Name, Samples: samples}, nil
	}
	return nil, fmt.Errorf("judge %s: provider %q cannot grade in this version", cfg.Name, cfg.Provider)
}
