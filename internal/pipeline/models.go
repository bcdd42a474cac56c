package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/cache"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/provider"
)

// DefaultPrices is the prices file read, when present, relative to the repository root.
const DefaultPrices = ".evalgate/prices.yaml"

// Models says where a run's model clients take their prices and reply cache from.
type Models struct {
	// Prices is a YAML price table overriding the built-in one ("" = DefaultPrices when
	// present).
	Prices string
	// CacheDir is the reply cache ("" = the user's cache directory); NoCache turns it off.
	CacheDir string
	NoCache  bool
}

// ModelOptions opens the reply cache and reads the prices for a run rooted at root: the
// options every model client of the run shares. A relative cache directory is relative to
// root (the action's workspace; run makes --cache-dir absolute). warn hears what does not
// stop the run, such as a cache that cannot be used.
func ModelOptions(ctx context.Context, m Models, root string, getenv func(string) string, warn func(string)) (provider.Options, error) {
	opts := provider.Options{Limiters: provider.NewLimiters(), Prices: price.Builtin(), Warn: warn, HTTPClient: provider.NewHTTPClient()}
	path, explicit := m.Prices, m.Prices != ""
	if !explicit {
		path = filepath.Join(root, DefaultPrices)
	}
	over, err := price.Load(path)
	switch {
	case err == nil:
		opts.Prices = opts.Prices.With(over)
	case explicit || !errors.Is(err, fs.ErrNotExist):
		return opts, err
	}
	if m.NoCache {
		return opts, nil
	}
	// A cache that cannot be used costs money, not correctness: say why and go on.
	if opts.Cache, err = openCache(ctx, m.CacheDir, root, getenv, opts.Warn); err != nil {
		opts.Warn(fmt.Sprintf("reply cache disabled: %v", err))
	}
	return opts, nil
}

// CacheKeyEnv names the variable a workflow sets from a repository secret to key the reply
// cache; without it the cache directory's key file is the key.
const CacheKeyEnv = "EVALGATE_CACHE_KEY"

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
	return cache.Open(dir, cache.Options{Secret: getenv(CacheKeyEnv), OnReject: func(path, reason string) {
		if strings.HasPrefix(reason, "older") {
			// Once, not per entry: every entry of an older evalgate is one.
			warn("reply cache: entries written by an older evalgate are not authenticated; they are recomputed")
			return
		}
		warn(fmt.Sprintf("reply cache: entry %s %s; not used, the model is asked again", path, reason))
	}})
}
