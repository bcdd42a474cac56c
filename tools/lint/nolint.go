package main

import (
	"go/ast"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// lineRange is the lines a //nolint directive covers and the linters it names (nil: all).
type lineRange struct {
	from, to int
	linters  []string
}

// nolintDirective is golangci-lint's syntax: //nolint or //nolint:a,b, then optionally a reason.
var nolintDirective = regexp.MustCompile(`^//nolint(?::([\w-]+(?:,[\w-]+)*))?(?:\s|//|$)`)

// nolintRanges returns, by file name, the lines each //nolint directive covers, as
// golangci-lint reads them: the directive's own line, and when the directive is alone on its
// line, the whole of a node starting on the next line at the same column (a declaration or
// statement below it).
func nolintRanges(pass *analysis.Pass) map[string][]lineRange {
	out := map[string][]lineRange{}
	for _, f := range pass.Files {
		name := pass.Fset.Position(f.FileStart).Filename
		var ranges []lineRange
		type pending struct{ idx, col int }
		var above []pending // directives that may cover the node below them
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				m := nolintDirective.FindStringSubmatch(c.Text)
				if m == nil {
					continue
				}
				pos := pass.Fset.Position(c.Slash)
				r := lineRange{from: pos.Line, to: pos.Line}
				if m[1] != "" {
					r.linters = strings.Split(m[1], ",")
				}
				ranges = append(ranges, r)
				above = append(above, pending{len(ranges) - 1, pos.Column})
			}
		}
		if len(above) > 0 {
			ast.Inspect(f, func(n ast.Node) bool {
				if n == nil {
					return false
				}
				start := pass.Fset.Position(n.Pos())
				for _, p := range above {
					r := &ranges[p.idx]
					if r.from == start.Line-1 && p.col == start.Column {
						r.to = max(r.to, pass.Fset.Position(n.End()).Line)
					}
				}
				return true
			})
		}
		out[name] = ranges
	}
	return out
}

// covered reports whether a finding of linter on line is silenced by one of ranges.
func covered(ranges []lineRange, line int, linter string) bool {
	for _, r := range ranges {
		if line >= r.from && line <= r.to && (r.linters == nil || slices.Contains(r.linters, linter) || slices.Contains(r.linters, "all")) {
			return true
		}
	}
	return false
}

// isGenerated reports whether the file is generated code (the "Code generated … DO NOT EDIT."
// header), which golangci-lint leaves out too.
func isGenerated(pass *analysis.Pass, filename string) bool {
	for _, f := range pass.Files {
		if pass.Fset.Position(f.FileStart).Filename == filename {
			return ast.IsGenerated(f)
		}
	}
	return false
}
