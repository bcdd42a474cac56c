// Package glob matches slash-separated paths against patterns with **, shared by suite
// discovery and change selection so both read a pattern the same way.
package glob

import (
	"path"
	"strings"
)

// Match reports whether a slash path matches a glob where * and ? stay within one segment and
// ** matches any number of segments (zero included), as in .gitignore and GitHub's path filters.
func Match(pattern, name string) bool {
	return matchSegs(pattern, name, true)
}

// matchSegs walks pattern and name a segment at a time without splitting them: selection
// matches every changed path against each glob, and allocating per path dominated its cost.
// hasName is false once every segment of name is consumed.
func matchSegs(pat, name string, hasName bool) bool {
	for {
		seg, rest, more := strings.Cut(pat, "/")
		if seg == "**" {
			for more {
				next, r, m := strings.Cut(rest, "/")
				if next != "**" {
					break
				}
				rest, more = r, m
			}
			if !more {
				return true
			}
			for hasName {
				if matchSegs(rest, name, true) {
					return true
				}
				_, name, hasName = strings.Cut(name, "/")
			}
			return false
		}
		if !hasName {
			return false
		}
		var nseg string
		nseg, name, hasName = strings.Cut(name, "/")
		if ok, err := path.Match(seg, nseg); err != nil || !ok {
			return false
		}
		if !more {
			return !hasName
		}
		pat = rest
	}
}
