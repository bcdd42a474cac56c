package judge

import (
	"bytes"
	"path"
	"strings"

	"github.com/sourcegraph/go-diff/diff"

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
var generatedSuffixes = []string{".min.js", ".min.css", ".js.map", ".css.map", ".min.mjs"}

// markerLines is how far into a file a "generated" marker is looked for: generators put
// it in the first comment.
const markerLines = 30

// diffFile is one file of a diff, rendered once, with its kind.
type diffFile struct {
	name   string
	kind   string
	header []byte   // extended headers and the ---/+++ lines
	hunks  [][]byte // each hunk with its @@ line
	size   int
	out    []byte // what the budget lets the judge see
}

func newDiffFile(fd *diff.FileDiff, rules []attrRule) *diffFile {
	f := &diffFile{name: fileName(fd)}
	if isBinary(fd) {
		f.kind = kindBinary
		return f
	}
	f.kind = classify(f.name, fd, rules)
	head := *fd
	if fd.Hunks != nil {
		head.Hunks = []*diff.Hunk{} // non-nil: print the ---/+++ lines, no hunk
	}
	f.header, _ = diff.PrintFileDiff(&head) // writes to a bytes.Buffer cannot fail
	f.size = len(f.header)
	for _, h := range fd.Hunks {
		b, _ := diff.PrintHunks([]*diff.Hunk{h})
		f.hunks = append(f.hunks, b)
		f.size += len(b)
	}
	return f
}

// fileName is the file's path in the new tree, or the old one for a deletion.
func fileName(fd *diff.FileDiff) string {
	name := strings.TrimPrefix(strings.TrimPrefix(fd.NewName, "b/"), "a/")
	if name == "/dev/null" || name == "" {
		name = strings.TrimPrefix(fd.OrigName, "a/")
	}
	return name
}

func isBinary(fd *diff.FileDiff) bool {
	for _, x := range fd.Extended {
		if strings.HasPrefix(x, "Binary files") || strings.HasPrefix(x, "GIT binary patch") {
			return true
		}
	}
	return false
}

// classify says whether a file is source or a kind the judge sees only with budget to spare:
// .gitattributes linguist-vendored/linguist-generated (where the diff shows them) decide
// first, then lock file names, vendor/ and node_modules/, dist/ and minified bundles, and a
// "DO NOT EDIT" or "@generated" marker near the top of the file.
func classify(name string, fd *diff.FileDiff, rules []attrRule) string {
	vendored, generated := linguist(rules, name)
	if lockFiles[path.Base(name)] {
		return kindLock
	}
	segs := strings.Split(name, "/")
	dirs := segs[:len(segs)-1]
	switch {
	case vendored > 0:
		return kindVendored
	case vendored == 0 && (containsAny(dirs, "vendor", "node_modules")):
		return kindVendored
	case generated > 0:
		return kindGenerated
	case generated < 0:
		return kindSource
	case containsAny(dirs, "dist"), hasAnySuffix(name, generatedSuffixes), hasMarker(fd):
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

// hasMarker looks for a generator's marker in the new file's first lines, where the diff
// shows them: Go's "// Code generated … DO NOT EDIT.", protoc's "DO NOT EDIT!", "@generated".
func hasMarker(fd *diff.FileDiff) bool {
	if len(fd.Hunks) == 0 || fd.Hunks[0].NewStartLine > markerLines {
		return false
	}
	body := fd.Hunks[0].Body
	for n := int(fd.Hunks[0].NewStartLine); n <= markerLines && len(body) > 0; {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if len(line) == 0 || line[0] == '-' {
			continue
		}
		if bytes.Contains(line, []byte("DO NOT EDIT")) || bytes.Contains(line, []byte("@generated")) {
			return true
		}
		n++
	}
	return false
}

// attrRule is one linguist attribute of a .gitattributes line the diff shows: set > 0,
// unset < 0.
type attrRule struct {
	dir, pattern string
	vendored     int
	generated    int
}

// attributeRules reads linguist-vendored and linguist-generated from the new side of every
// .gitattributes in the diff. Lines the diff does not show are unknown: evalgate sees the diff,
// not the workspace.
func attributeRules(fds []*diff.FileDiff) []attrRule {
	var rules []attrRule
	for _, fd := range fds {
		name := fileName(fd)
		if path.Base(name) != ".gitattributes" || strings.HasSuffix(fd.NewName, "/dev/null") {
			continue
		}
		dir := path.Dir(name)
		if dir == "." {
			dir = ""
		}
		for _, h := range fd.Hunks {
			for _, line := range strings.Split(string(h.Body), "\n") {
				if line == "" || line[0] == '-' {
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
