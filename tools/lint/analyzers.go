package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"codeberg.org/polyfloyd/go-errorlint/errorlint"
	"github.com/kunwardeep/paralleltest/pkg/paralleltest"
	"golang.org/x/tools/go/analysis"
	scconfig "honnef.co/go/tools/config"
	"honnef.co/go/tools/quickfix"
	"honnef.co/go/tools/simple"
	"honnef.co/go/tools/staticcheck"
	"honnef.co/go/tools/stylecheck"
)

// settings is the config, read once per process (go vet runs one process per package) on
// first use: flags are parsed after the analyzers are built.
type settings struct {
	path *string
	once sync.Once
	cfg  *config
	dir  string
	err  error
}

func (s *settings) get() (*config, error) {
	s.once.Do(func() {
		if *s.path == "" {
			s.err = errors.New("no -config: run lint with package patterns, not as go vet's -vettool directly")
			return
		}
		data, err := os.ReadFile(*s.path)
		if err != nil {
			s.err = fmt.Errorf("read config: %w", err)
			return
		}
		s.cfg, s.err = parseConfig(data)
		// Exclusion paths are relative to the config's directory, as golangci-lint v2's are.
		s.dir = filepath.Dir(*s.path) + string(filepath.Separator)
	})
	return s.cfg, s.err
}

// analyzers returns every analyzer this tool can run, each wrapped to apply the config: a
// disabled linter's analyzer does nothing, and findings pass the exclusion rules and //nolint.
func analyzers(configPath *string) []*analysis.Analyzer {
	s := &settings{path: configPath}
	// staticcheck's analyzers read their settings from this analyzer; as golangci-lint does,
	// answer with the config's rather than a staticcheck.conf.
	scconfig.Analyzer.Run = func(*analysis.Pass) (any, error) {
		c, err := s.get()
		if err != nil {
			return nil, err
		}
		return &scconfig.Config{
			Checks:                  c.Linters.Settings.Staticcheck.Checks,
			Initialisms:             scconfig.DefaultConfig.Initialisms,
			DotImportWhitelist:      scconfig.DefaultConfig.DotImportWhitelist,
			HTTPStatusCodeWhitelist: scconfig.DefaultConfig.HTTPStatusCodeWhitelist,
		}, nil
	}

	var out []*analysis.Analyzer
	for _, a := range slices.Concat(staticcheck.Analyzers, stylecheck.Analyzers, simple.Analyzers, quickfix.Analyzers) {
		out = append(out, wrap(s, "staticcheck", a.Analyzer))
	}
	errs := errorlint.NewAnalyzer()
	must(errs.Flags.Set("errorf", "true")) // golangci-lint's default; the library's is false
	par := paralleltest.NewAnalyzer()
	must(par.Flags.Set("ignoreloopVar", "true")) // golangci-lint sets it for Go ≥ 1.22
	return append(out,
		wrap(s, "errorlint", errs),
		wrap(s, "paralleltest", par),
		wrap(s, "forbidigo", forbidigoAnalyzer(s)),
		wrap(s, "unused", unusedAnalyzer),
	)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// wrap returns a copy of a that runs only when its linter (and, for staticcheck, its check)
// is enabled, and reports a finding only when no exclusion rule or //nolint covers it.
func wrap(s *settings, linter string, a *analysis.Analyzer) *analysis.Analyzer {
	w := *a
	label := linter
	if linter == "staticcheck" {
		label += " " + a.Name
	}
	w.Run = func(pass *analysis.Pass) (any, error) {
		c, err := s.get()
		if err != nil {
			return nil, err
		}
		on := c.enabled(linter) && (linter != "staticcheck" || checkEnabled(c.Linters.Settings.Staticcheck.Checks, a.Name))
		if !on {
			return nil, nil
		}
		// By file name, built on the first finding.
		nolint := sync.OnceValue(func() map[string][]lineRange { return nolintRanges(pass) })
		p := *pass
		p.Report = func(d analysis.Diagnostic) {
			pos := pass.Fset.Position(d.Pos)
			if covered(nolint()[pos.Filename], pos.Line, linter) || isGenerated(pass, pos.Filename) {
				return
			}
			rel, inTree := strings.CutPrefix(pos.Filename, s.dir)
			if inTree && c.excluded(linter, filepath.ToSlash(rel), d.Message) {
				return
			}
			// Some analyzers end their message with a newline (paralleltest).
			d.Message = strings.TrimSpace(d.Message) + " (" + label + ")"
			pass.Report(d)
		}
		return a.Run(&p)
	}
	return &w
}

// checkEnabled applies a staticcheck checks list (all, -X, prefix globs, names) to one check,
// as staticcheck's lintcmd does (and golangci-lint's copy of it).
func checkEnabled(checks []string, name string) bool {
	on := false
	for _, c := range checks {
		b := true
		if len(c) > 1 && c[0] == '-' {
			b, c = false, c[1:]
		}
		switch {
		case c == "*" || c == "all":
			on = b
		case strings.HasSuffix(c, "*"):
			prefix := c[:len(c)-1]
			if strings.IndexFunc(prefix, unicode.IsNumber) == -1 {
				// S* matches S1000, not SA1000.
				if i := strings.IndexFunc(name, unicode.IsNumber); i >= 0 && name[:i] == prefix {
					on = b
				}
			} else if strings.HasPrefix(name, prefix) {
				on = b
			}
		case c == name:
			on = b
		}
	}
	return on
}
