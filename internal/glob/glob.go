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
	return matchSegs(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range name {
				if matchSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
