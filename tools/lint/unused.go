package main

import (
	"fmt"

	"golang.org/x/tools/go/analysis"
	"honnef.co/go/tools/unused"
)

// unusedAnalyzer reports staticcheck's U1000 findings. unused.Analyzer returns them as a
// result for staticcheck's own driver to print (with staticcheck's default options, which are
// golangci-lint's: exported names count as used); this reports them, as golangci-lint's unused
// linter does, less the objects also listed as used and type parameters.
var unusedAnalyzer = &analysis.Analyzer{
	Name:     "unused",
	Doc:      unused.Analyzer.Analyzer.Doc,
	Requires: []*analysis.Analyzer{unused.Analyzer.Analyzer},
	Run: func(pass *analysis.Pass) (any, error) {
		res := pass.ResultOf[unused.Analyzer.Analyzer].(unused.Result)
		key := func(o unused.Object) string {
			return fmt.Sprintf("%s %d %s", o.Position.Filename, o.Position.Line, o.Name)
		}
		used := map[string]bool{}
		for _, o := range res.Used {
			used[key(o)] = true
		}
		for _, o := range res.Unused {
			if o.Kind == "type param" || used[key(o)] {
				continue
			}
			for _, f := range pass.Files {
				if tf := pass.Fset.File(f.FileStart); tf.Name() == o.Position.Filename {
					pass.Report(analysis.Diagnostic{Pos: tf.Pos(o.Position.Offset), Message: fmt.Sprintf("%s %s is unused", o.Kind, o.Name)})
					break
				}
			}
		}
		return nil, nil
	},
}
