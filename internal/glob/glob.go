// Package glob matches slash-separated paths against patterns with **, shared by suite
// discovery and change selection so both read a pattern the same way.
package glob

import (
	"path"
	"strings"
)

// Match reports whether a slash path matches a glob where * and ? stay within one segment and
// ** matches any number of segments (zero included), as in .gitignore and GitHub's path filters.
//
// It walks pattern and name a segment at a time without splitting them (selection matches
// every changed path against each glob, and allocating per path dominated its cost), and on a
// mismatch lets only the last ** take one more segment, as wildcard matching does with *:
// every other segment matches exactly one, so earlier ** need not be retried. That keeps a
// pattern with many ** linear-times-length; patterns can come from a .gitattributes in the
// agent's diff, and trying every split per ** was exponential in their number.
func Match(pattern, name string) bool {
	pat, hasPat := pattern, true
	hasName := true
	star := false
	var starPat, starName string
	var starHasPat, starHasName bool
	for {
		if hasPat {
			seg, rest, more := strings.Cut(pat, "/")
			if seg == "**" {
				star = true
				starPat, starHasPat = rest, more
				starName, starHasName = name, hasName
				pat, hasPat = rest, more
				continue
			}
			if hasName {
				nseg, nrest, nmore := strings.Cut(name, "/")
				if ok, err := path.Match(seg, nseg); err == nil && ok {
					pat, hasPat = rest, more
					name, hasName = nrest, nmore
					continue
				}
			}
		} else if !hasName {
			return true
		}
		if !star || !starHasName {
			return false
		}
		_, starName, starHasName = strings.Cut(starName, "/")
		pat, hasPat = starPat, starHasPat
		name, hasName = starName, starHasName
	}
}
