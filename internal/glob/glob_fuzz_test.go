package glob

import (
	"path"
	"strings"
	"testing"
)

// splitMatch is the matcher by its definition: split into segments, try every split per **.
// Match must agree with it.
func splitMatch(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range name {
				if splitMatch(pat, name[i:]) {
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

// FuzzMatch checks Match against splitMatch, with ** at the edges and empty segments.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"**", ""}, {"**/", "a/"}, {"a/**", "a"}, {"/**/", "/"}, {"a//b", "a//b"},
		{"**/**/x", "x"}, {"", ""}, {"*", ""}, {"**/a/**/b", "a/a/b/b"}, {"a/**/b/**/c", "a/b/x/c/c"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if strings.Count(pat, "**") > 6 || len(pat) > 64 || len(name) > 64 {
			return // splitMatch is exponential in **
		}
		if got, want := Match(pat, name), splitMatch(strings.Split(pat, "/"), strings.Split(name, "/")); got != want {
			t.Fatalf("Match(%q, %q) = %v, splitMatch says %v", pat, name, got, want)
		}
	})
}

// TestMatchManyDoubleStars is a pattern of many ** against a deep path that does not match:
// trying every split per ** would not finish.
func TestMatchManyDoubleStars(t *testing.T) {
	t.Parallel()
	pat := strings.Repeat("**/a/", 12) + "b"
	name := strings.Repeat("a/", 400) + "c"
	if Match(pat, name) {
		t.Fatalf("Match(%q, …) = true, want false", pat)
	}
	if !Match(pat, strings.Repeat("a/", 400)+"b") {
		t.Fatalf("Match(%q, …/b) = false, want true", pat)
	}
}
