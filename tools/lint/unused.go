package main

import (
	"fmt"

	"golang.org/x/tools/go/analysis"
	"honnef.co/go/tools/analysis/facts/directives"
	"honnef.co/go/tools/analysis/facts/generated"
	"honnef.co/go/tools/analysis/lint"
	"honnef.co/go/tools/unused"
)

// unusedAnalyzer reports staticcheck's U1000 findings. unused.Analyzer returns them as a
// result for staticcheck's own driver to print; this reports them, as golangci-lint's unused
// linter does, with the same options (staticcheck's defaults: exported names count as used).
var unusedAnalyzer = &analysis.Analyzer{
	Name:     "unused",
	Doc:      unused.Analyzer.Analyzer.Doc,
	Requires: unused.Analyzer.Analyzer.Requires,
	Run: func(pass *analysis.Pass) (any, error) {
		nodes := unused.Graph(pass.Fset, pass.Files, pass.Pkg, pass.TypesInfo,
			pass.ResultOf[directives.Analyzer].([]lint.Directive),
			pass.ResultOf[generated.Analyzer].(map[string]generated.Generator),
			unused.DefaultOptions)
		var sg unused.SerializedGraph
		sg.Merge(nodes)
		res := sg.Results()
		used := map[string]bool{}
		key := func(o unused.Object) string {
			return fmt.Sprintf("%s %d %s", o.Position.Filename, o.Position.Line, o.Name)
		}
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
