package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/glob"
	"github.com/evalgate/evalgate/internal/suite"
)

// patternsText lists the discovery patterns for messages and help.
func patternsText() string { return strings.Join(suite.DefaultPatterns, ", ") }

// maxExamples bounds the files a "nothing found" message names.
const maxExamples = 3

// noEvalFiles explains why discovery found nothing under paths: what was searched, with which
// patterns, and what was there instead. It is the one place this message is written.
func noEvalFiles(paths, patterns []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "no eval files found in %s", strings.Join(paths, ", "))
	searched := false
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "\n  %s: %v", p, errors.Unwrap(err))
			continue
		case !fi.IsDir():
			continue // a file named explicitly is always loaded
		}
		searched = true
		near := nearMisses(p, patterns)
		fmt.Fprintf(&b, "\n  searched %s for %s (relative to it; .git, node_modules and .evalgate are skipped)", p, strings.Join(patterns, ", "))
		if len(near) == 0 {
			fmt.Fprintf(&b, "\n  %s holds no .yaml, .yml or .jsonl file", p)
			continue
		}
		fmt.Fprintf(&b, "\n  %d YAML/JSONL file(s) there match no pattern, e.g.:", len(near))
		for _, n := range near[:min(len(near), maxExamples)] {
			fmt.Fprintf(&b, "\n    %s: %s", filepath.Join(p, n.rel), n.why)
		}
	}
	if searched {
		b.WriteString("\n  name eval files directly (evalgate run path/to/x.eval.yaml), or point at a directory that has an evals/ directory below it")
	}
	return usageErr("%s", b.String())
}

// nearMiss is a file that looks like it could be an eval file, and why no pattern took it.
type nearMiss struct{ rel, why string }

// nearMisses lists the YAML and JSONL files under dir that no pattern matched, eval-looking
// names first.
func nearMisses(dir string, patterns []string) []nearMiss {
	var evalish, other []nearMiss
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are skipped, as discovery skips them
		}
		if d.IsDir() {
			if n := d.Name(); path != dir && (n == ".git" || n == "node_modules" || n == ".evalgate") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		switch strings.ToLower(filepath.Ext(name)) {
		case ".yaml", ".yml", ".jsonl":
		default:
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		for _, pat := range patterns {
			if glob.Match(pat, rel) {
				return nil
			}
		}
		switch {
		case strings.HasPrefix(name, "targets."):
			// a targets file, not an eval file
		case isEvalName(name) && !underEvals(rel):
			evalish = append(evalish, nearMiss{rel, "not inside an evals/ directory below " + dir})
		case isEvalName(name):
			evalish = append(evalish, nearMiss{rel, "matches no pattern"})
		default:
			other = append(other, nearMiss{rel, "the name is not *.eval.yaml or eval.yaml"})
		}
		return nil
	})
	return append(evalish, other...)
}

func isEvalName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".eval.yaml") || strings.HasSuffix(n, ".eval.yml") || n == "eval.yaml" || n == "eval.yml"
}

// underEvals reports whether a relative path has an evals directory above the file.
func underEvals(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if p == "evals" {
			return true
		}
	}
	return false
}
