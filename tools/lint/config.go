package main

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"
)

// config is the part of a golangci-lint v2 configuration this tool applies, with golangci-lint's
// meaning and defaults. Decoding refuses any other key, so a setting added to .golangci.yml for
// golangci-lint cannot be silently ignored in CI: support it here or leave it out.
type config struct {
	Version string `yaml:"version"`
	Linters struct {
		Default  string   `yaml:"default"`
		Enable   []string `yaml:"enable"`
		Settings struct {
			Forbidigo struct {
				AnalyzeTypes         bool  `yaml:"analyze-types"`
				ExcludeGodocExamples *bool `yaml:"exclude-godoc-examples"`
				Forbid               []struct {
					Pattern string `yaml:"pattern"`
					Pkg     string `yaml:"pkg"`
					Msg     string `yaml:"msg"`
				} `yaml:"forbid"`
			} `yaml:"forbidigo"`
			Staticcheck struct {
				Checks []string `yaml:"checks"`
			} `yaml:"staticcheck"`
		} `yaml:"settings"`
		Exclusions struct {
			Rules []*rule `yaml:"rules"`
		} `yaml:"exclusions"`
	} `yaml:"linters"`
}

// rule is one exclusions.rules entry: an issue is excluded when every field set matches it.
// Paths are the file's, relative to the config's directory, with forward slashes.
type rule struct {
	Linters    []string `yaml:"linters"`
	Path       string   `yaml:"path"`
	PathExcept string   `yaml:"path-except"`
	Text       string   `yaml:"text"`

	path, pathExcept, text *regexp.Regexp
}

// linterNames are the linters this tool can run.
var linterNames = []string{"errorlint", "forbidigo", "paralleltest", "staticcheck", "unused"}

// defaultStaticcheckChecks is golangci-lint v2's default for linters.settings.staticcheck.checks.
var defaultStaticcheckChecks = []string{"all", "-ST1000", "-ST1003", "-ST1016", "-ST1020", "-ST1021", "-ST1022"}

func parseConfig(data []byte) (*config, error) {
	var c config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	if c.Version != "2" {
		return nil, fmt.Errorf("parse config: version %q, want \"2\" (golangci-lint v2)", c.Version)
	}
	if c.Linters.Default != "none" {
		return nil, fmt.Errorf("parse config: linters.default %q: only \"none\" (the enable list is the whole set) is supported", c.Linters.Default)
	}
	for _, l := range c.Linters.Enable {
		if !slices.Contains(linterNames, l) {
			return nil, fmt.Errorf("parse config: linter %q is not one this tool runs (%v)", l, linterNames)
		}
	}
	if c.Linters.Settings.Staticcheck.Checks == nil {
		c.Linters.Settings.Staticcheck.Checks = defaultStaticcheckChecks
	}
	for i, r := range c.Linters.Exclusions.Rules {
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("parse config: exclusions.rules[%d]: %w", i, err)
		}
	}
	return &c, nil
}

func (r *rule) compile() error {
	if r.Path == "" && r.PathExcept == "" && r.Text == "" {
		return errors.New("a rule needs path, path-except or text")
	}
	for _, l := range r.Linters {
		if !slices.Contains(linterNames, l) {
			return fmt.Errorf("linter %q is not one this tool runs", l)
		}
	}
	var err error
	for _, f := range []struct {
		src string
		re  **regexp.Regexp
	}{{r.Path, &r.path}, {r.PathExcept, &r.pathExcept}, {r.Text, &r.text}} {
		if f.src == "" {
			continue
		}
		if *f.re, err = regexp.Compile(f.src); err != nil {
			return fmt.Errorf("compile %q: %w", f.src, err)
		}
	}
	return nil
}

func (c *config) enabled(linter string) bool {
	return slices.Contains(c.Linters.Enable, linter)
}

// excluded reports whether an issue of linter at the file relPath with message text is
// excluded by a rule.
func (c *config) excluded(linter, relPath, text string) bool {
	for _, r := range c.Linters.Exclusions.Rules {
		if r.matches(linter, relPath, text) {
			return true
		}
	}
	return false
}

func (r *rule) matches(linter, relPath, text string) bool {
	return (len(r.Linters) == 0 || slices.Contains(r.Linters, linter)) &&
		(r.path == nil || r.path.MatchString(relPath)) &&
		(r.pathExcept == nil || !r.pathExcept.MatchString(relPath)) &&
		(r.text == nil || r.text.MatchString(text))
}
