package main

import (
	"fmt"

	"github.com/ashanbrown/forbidigo/v2/forbidigo"
	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/go/analysis"
)

// forbidigoAnalyzer runs forbidigo's library with the config's patterns, as golangci-lint's
// forbidigo linter does (//permit directives off: only //nolint silences).
func forbidigoAnalyzer(s *settings) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name: "forbidigo",
		Doc:  "forbids identifiers matching the config's patterns",
		Run: func(pass *analysis.Pass) (any, error) {
			c, err := s.get()
			if err != nil {
				return nil, err
			}
			fs := c.Linters.Settings.Forbidigo
			var patterns []string
			for _, f := range fs.Forbid {
				// The library takes each pattern as YAML text; its keys are p, pkg and msg.
				b, err := yaml.Marshal(struct {
					P   string `yaml:"p"`
					Pkg string `yaml:"pkg,omitempty"`
					Msg string `yaml:"msg,omitempty"`
				}{f.Pattern, f.Pkg, f.Msg})
				if err != nil {
					return nil, fmt.Errorf("forbidigo: encode pattern %q: %w", f.Pattern, err)
				}
				patterns = append(patterns, string(b))
			}
			godocExamples := fs.ExcludeGodocExamples == nil || *fs.ExcludeGodocExamples
			l, err := forbidigo.NewLinter(patterns,
				forbidigo.OptionExcludeGodocExamples(godocExamples),
				forbidigo.OptionIgnorePermitDirectives(true),
				forbidigo.OptionAnalyzeTypes(fs.AnalyzeTypes))
			if err != nil {
				return nil, fmt.Errorf("forbidigo: %w", err)
			}
			cfg := forbidigo.RunConfig{Fset: pass.Fset}
			if fs.AnalyzeTypes {
				cfg.TypesInfo = pass.TypesInfo
			}
			for _, f := range pass.Files {
				hints, err := l.RunWithConfig(cfg, f)
				if err != nil {
					return nil, fmt.Errorf("forbidigo: %w", err)
				}
				for _, h := range hints {
					pass.Report(analysis.Diagnostic{Pos: h.Pos(), Message: h.Details()})
				}
			}
			return nil, nil
		},
	}
}
