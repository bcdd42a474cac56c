package suite

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/glob"
)

// DefaultPatterns find every eval file under a directory: AgentV's names (*.eval.yaml,
// eval.yaml) at any depth, which AgentV's own globs (**/evals/**/*.eval.yaml, …) are part of.
var DefaultPatterns = []string{"**/*.eval.yaml", "**/*.eval.yml", "**/eval.yaml", "**/eval.yml"}

// skipDirs are never searched: they hold other people's files, or evalgate's own.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".evalgate": true}

// Discovery is the outcome of a search for eval files, with what was looked at so that an
// empty result can be explained.
type Discovery struct {
	// Files are the eval files found, sorted and unique.
	Files []string
	// Dirs are the directories searched, as given.
	Dirs []string
	// Patterns are the globs matched against paths relative to each directory.
	Patterns []string
	// Others are the .yaml, .yml and .jsonl files seen in the directories that no pattern
	// matched (test lists, sidecars, targets files, or eval files under another name).
	Others []string
}

// Search lists eval files: directories are searched with patterns (DefaultPatterns when nil)
// matched against paths relative to the directory; .yaml, .yml and .jsonl files are used as
// given. Directory walks do not follow symbolic links; a linked eval file is listed, and
// loading it checks that it stays inside the repository.
func Search(paths []string, patterns []string) (*Discovery, error) {
	if patterns == nil {
		patterns = DefaultPatterns
	}
	d := &Discovery{Patterns: patterns}
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			d.Files = append(d.Files, p)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			if !isEvalExt(p) {
				return nil, fmt.Errorf("%s: not an eval file (.yaml, .yml or .jsonl)", p)
			}
			add(p)
			continue
		}
		d.Dirs = append(d.Dirs, p)
		if err := d.walk(p, add); err != nil {
			return nil, fmt.Errorf("search %s: %w", p, err)
		}
	}
	sort.Strings(d.Files)
	return d, nil
}

// walk searches one directory. A directory given as a link is searched where it leads.
func (d *Discovery) walk(dir string, add func(string)) error {
	start := dir
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		start = dir + string(filepath.Separator)
	}
	return filepath.WalkDir(start, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel != "." && skipDirs[e.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		for _, pat := range d.Patterns {
			if glob.Match(pat, rel) {
				add(filepath.Join(dir, filepath.FromSlash(rel)))
				return nil
			}
		}
		if isEvalExt(path) {
			d.Others = append(d.Others, filepath.Join(dir, filepath.FromSlash(rel)))
		}
		return nil
	})
}

func isEvalExt(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".jsonl":
		return true
	}
	return false
}

// Explain says what was searched and why nothing matched, for the message when Files is
// empty: the directories, the patterns, and the YAML files seen under other names.
func (d *Discovery) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no eval files found in %s (looked for %s", strings.Join(d.Dirs, ", "), strings.Join(d.Patterns, ", "))
	b.WriteString("; .git, node_modules and .evalgate are not searched)")
	if len(d.Others) == 0 {
		b.WriteString("; there are no .yaml, .yml or .jsonl files there at all")
		return b.String()
	}
	const shown = 10
	fmt.Fprintf(&b, "; %d YAML/JSONL file(s) there have other names: ", len(d.Others))
	for i, o := range d.Others {
		if i == shown {
			fmt.Fprintf(&b, ", and %d more", len(d.Others)-shown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(filepath.ToSlash(o))
	}
	b.WriteString(" (name an eval file NAME.eval.yaml, or pass the file itself)")
	return b.String()
}

// Discover is Search's list of files.
func Discover(paths []string, patterns []string) ([]string, error) {
	d, err := Search(paths, patterns)
	if err != nil {
		return nil, err
	}
	return d.Files, nil
}
