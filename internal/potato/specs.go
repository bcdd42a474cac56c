package potato

import (
	"path/filepath"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// Specs re-reads the run's suites under root, so the export can carry what results.json
// leaves out. A suite that no longer loads is skipped; skipped hears its path.
func Specs(run *result.Run, root string, getenv func(string) string, skipped func(path string)) SpecFunc {
	loaded := map[string]*suite.Suite{}
	for _, s := range run.Suites {
		if s.Path == "" || loaded[s.Path] != nil {
			continue
		}
		path := s.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		su, ds := suite.Load(path, suite.LoadOptions{Root: root, Getenv: getenv})
		if su == nil || ds.HasErrors() {
			if skipped != nil {
				skipped(s.Path)
			}
			continue
		}
		loaded[s.Path] = su
	}
	return func(s *result.SuiteResult, t *result.TestResult, grader string) *suite.Grader {
		su := loaded[s.Path]
		if su == nil {
			return nil
		}
		for _, st := range su.Tests {
			if st.ID == t.ID {
				return findGrader(st.Graders, grader)
			}
		}
		return nil
	}
}

func findGrader(gs []*suite.Grader, name string) *suite.Grader {
	for _, g := range gs {
		if g.Name == name {
			return g
		}
		if m := findGrader(g.Members, name); m != nil {
			return m
		}
	}
	return nil
}
