package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ignoreRules gathers the .gitignore files under dir, as they are now, into one exclude file
// whose patterns are rooted at dir, so that git can apply them later without reading the
// workspace's .gitignore files again.
//
// This is evalgate's choice for ignored files: the rules in force at the baseline — the
// template's, and what setup hooks (or, in a shared workspace, earlier tests) wrote — are
// honoured, so dependencies and build output a template ignores stay out of the diff. A
// .gitignore the agent writes or edits is part of its diff like any file, but it cannot hide
// the agent's new files from it.
//
// A file in a subdirectory D has its patterns rewritten as git reads them: one with a slash
// at its start or in its middle is relative to D (/D/pattern); any other matches at any depth
// under D (/D/**/pattern). Deeper files come later, so they win, as in git. Symlinked
// .gitignore files are not followed, as git does not follow them.
func ignoreRules(dir string) ([]byte, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // removed while we looked
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.Name() == ".gitignore" && d.Type().IsRegular():
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	depth := func(p string) int { return strings.Count(p, string(filepath.Separator)) }
	sort.SliceStable(files, func(i, j int) bool { return depth(files[i]) < depth(files[j]) })
	var out bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(f))
		if err != nil {
			return nil, err
		}
		if rel == "." {
			rel = ""
		}
		data = bytes.TrimPrefix(data, []byte("\ufeff"))
		for _, line := range strings.Split(string(data), "\n") {
			if r, ok := rebase(line, filepath.ToSlash(rel)); ok {
				out.WriteString(r)
				out.WriteByte('\n')
			}
		}
	}
	return out.Bytes(), nil
}

// rebase rewrites one line of the .gitignore in directory dir (slash-separated, "" = the top)
// as a pattern rooted at the top; ok is false for lines that hold no pattern.
func rebase(line, dir string) (string, bool) {
	p := trimTrailingSpaces(line)
	if p == "" || strings.HasPrefix(p, "#") {
		return "", false
	}
	if dir == "" {
		return p, true
	}
	neg := strings.HasPrefix(p, "!")
	p = strings.TrimPrefix(p, "!")
	dirOnly := strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	anchored := strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "", false
	}
	prefix := "/" + escapeGlob(dir) + "/"
	if !anchored {
		prefix += "**/"
	}
	p = prefix + p
	if dirOnly {
		p += "/"
	}
	if neg {
		p = "!" + p
	}
	return p, true
}

// trimTrailingSpaces drops trailing spaces not escaped with a backslash, as git does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' && (end < 2 || s[end-2] != '\\') {
		end--
	}
	return s[:end]
}

// escapeGlob makes a directory name match itself literally in a pattern.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
