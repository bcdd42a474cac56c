package judge

import (
	"path"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/glob"
)

// Kinds of file that yield the judge's diff budget to source files.
const (
	kindSource    = ""
	kindLock      = "lock file"
	kindVendored  = "vendored"
	kindGenerated = "generated"
	kindBinary    = "binary"
)

// lockFiles are dependency lock files: long, generated, and rarely what a rubric is about.
var lockFiles = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "go.sum": true,
	"Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true, "uv.lock": true,
	"npm-shrinkwrap.json": true, "bun.lockb": true, "Pipfile.lock": true, "packages.lock.json": true,
}

// generatedSuffixes name build output by its extension: minified bundles and source maps.
var generatedSuffixes = []string{".min.js", ".min.mjs", ".min.css", ".js.map", ".css.map"}

// markerLines is how far into a file a "generated" marker is looked for: generators put
// it in the first comment.
const markerLines = 30

// classifyAll sets every file's kind, with the linguist attributes of the .gitattributes
// files the diff shows.
func classifyAll(files []*diffFile) {
	rules := attributeRules(files)
	for _, f := range files {
		f.kind = classify(f, rules)
	}
}

// classify says whether a file is source or a kind the judge sees only with budget to spare:
// .gitattributes linguist-vendored/linguist-generated (where the diff shows them) decide
// first, then lock file names, vendor/ and node_modules/, dist/ and minified bundles, and a
// "DO NOT EDIT" or "@generated" marker near the top of the file.
func classify(f *diffFile, rules []attrRule) string {
	if f.binary {
		return kindBinary
	}
	if lockFiles[path.Base(f.name)] {
		return kindLock
	}
	vendored, generated := linguist(rules, f.name)
	dirs := strings.Split(path.Dir(f.name), "/")
	switch {
	case vendored > 0, vendored == 0 && containsAny(dirs, "vendor", "node_modules"):
		return kindVendored
	case generated > 0:
		return kindGenerated
	case generated < 0:
		return kindSource
	case containsAny(dirs, "dist"), hasAnySuffix(f.name, generatedSuffixes), len(f.hunks) > 0 && hasMarker(f.hunks[0]):
		return kindGenerated
	}
	return kindSource
}

func containsAny(segs []string, names ...string) bool {
	for _, s := range segs {
		for _, n := range names {
			if s == n {
				return true
			}
		}
	}
	return false
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// hasMarker looks for a generator's marker in the new file's first lines, where a hunk shows
// them: Go's "// Code generated … DO NOT EDIT.", protoc's "DO NOT EDIT!", "@generated".
func hasMarker(hunk string) bool {
	head, body, _ := strings.Cut(hunk, "\n")
	n := newStart(head)
	for body != "" && n <= markerLines {
		var line string
		line, body, _ = strings.Cut(body, "\n")
		if line == "" || line[0] == '-' || line[0] == '\\' {
			continue
		}
		if strings.Contains(line, "DO NOT EDIT") || strings.Contains(line, "@generated") {
			return true
		}
		n++
	}
	return false
}

// newStart is the new file's first line in a hunk header "@@ -a,b +c,d @@", or a line past
// markerLines when the header does not say.
func newStart(head string) int {
	_, after, ok := strings.Cut(head, " +")
	if !ok {
		return markerLines + 1
	}
	end := strings.IndexAny(after, ", ")
	if end < 0 {
		return markerLines + 1
	}
	n, err := strconv.Atoi(after[:end])
	if err != nil {
		return markerLines + 1
	}
	return n
}

// attrRule is one linguist attribute of a .gitattributes line the diff shows: set > 0,
// unset < 0.
type attrRule struct {
	dir, pattern string
	vendored     int
	generated    int
}

// attributeRules reads linguist-vendored and linguist-generated from the new side of every
// .gitattributes in the diff. Lines the diff does not show are unknown: the judge sees the
// diff, not the workspace.
func attributeRules(files []*diffFile) []attrRule {
	var rules []attrRule
	for _, f := range files {
		if path.Base(f.name) != ".gitattributes" {
			continue
		}
		dir := path.Dir(f.name)
		if dir == "." {
			dir = ""
		}
		for _, h := range f.hunks {
			_, body, _ := strings.Cut(h, "\n")
			for body != "" {
				var line string
				line, body, _ = strings.Cut(body, "\n")
				if line == "" || (line[0] != ' ' && line[0] != '+') {
					continue
				}
				if r, ok := parseAttrLine(dir, line[1:]); ok {
					rules = append(rules, r)
				}
			}
		}
	}
	return rules
}

func parseAttrLine(dir, line string) (attrRule, bool) {
	fields := strings.Fields(line)
	if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
		return attrRule{}, false
	}
	r := attrRule{dir: dir, pattern: fields[0]}
	for _, a := range fields[1:] {
		v := 1
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "!") || strings.HasSuffix(a, "=false") {
			v = -1
		}
		switch strings.TrimSuffix(strings.TrimSuffix(strings.TrimLeft(a, "-!"), "=true"), "=false") {
		case "linguist-vendored":
			r.vendored = v
		case "linguist-generated":
			r.generated = v
		}
	}
	return r, r.vendored != 0 || r.generated != 0
}

// linguist applies the rules to name, a later matching line overriding an earlier one as in
// git.
func linguist(rules []attrRule, name string) (vendored, generated int) {
	for _, r := range rules {
		if !r.matches(name) {
			continue
		}
		if r.vendored != 0 {
			vendored = r.vendored
		}
		if r.generated != 0 {
			generated = r.generated
		}
	}
	return vendored, generated
}

// matches is gitattributes matching: a pattern without a slash matches the file name at any
// depth below the attributes file, one with a slash the path relative to it.
func (r attrRule) matches(name string) bool {
	rel := name
	if r.dir != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(name, r.dir+"/"); !ok {
			return false
		}
	}
	if !strings.Contains(r.pattern, "/") {
		ok, err := path.Match(r.pattern, path.Base(rel))
		return err == nil && ok
	}
	return glob.Match(strings.TrimPrefix(r.pattern, "/"), rel)
}
