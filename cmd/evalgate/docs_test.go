package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mdLink matches an inline Markdown link or image target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// heading matches an ATX heading line.
var heading = regexp.MustCompile(`^#{1,6} (.*)$`)

// anchorDrop is what GitHub drops from a heading to make its anchor: punctuation other than
// '-' and '_'.
var anchorDrop = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)

// githubAnchor is GitHub's anchor for a heading's text.
func githubAnchor(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	return strings.ReplaceAll(anchorDrop.ReplaceAllString(h, ""), " ", "-")
}

// outsideFences is a Markdown file's lines with those of fenced code blocks blanked, so that
// index+1 is still the line number.
func outsideFences(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// markdownAnchors are the anchors of a Markdown file's headings; a repeated heading gets
// GitHub's -1, -2, … suffix.
func markdownAnchors(text string) map[string]bool {
	seen := map[string]int{}
	anchors := map[string]bool{}
	for _, l := range outsideFences(text) {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := githubAnchor(m[1])
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

func TestGithubAnchor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"Use it in GitHub Actions", "use-it-in-github-actions"},
		{"Which `uses:` works today", "which-uses-works-today"},
		{"Deltas against the base branch (`baseline: auto`)", "deltas-against-the-base-branch-baseline-auto"},
		{"Reports and results.json", "reports-and-resultsjson"},
		{"Verdicts for stochastic agents: `fail_on` and flaky tests", "verdicts-for-stochastic-agents-fail_on-and-flaky-tests"},
		{"Judge–human calibration", "judgehuman-calibration"},
	} {
		if got := githubAnchor(c.in); got != c.want {
			t.Errorf("githubAnchor(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if a := markdownAnchors("# A\n## A\n```\n# not a heading\n```\n## A\n"); !a["a"] || !a["a-1"] || !a["a-2"] || a["not-a-heading"] {
		t.Errorf("markdownAnchors: %v", a)
	}
}

// TestDocsLinksResolve: every relative link in README.md and docs/*.md names a file that
// exists and, for an #anchor into a Markdown file, a heading that file has.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	if len(files) < 10 {
		t.Fatalf("found only %d Markdown files", len(files))
	}
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) (map[string]bool, error) {
		if a, ok := anchorsOf[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchorsOf[path] = markdownAnchors(string(b))
		return anchorsOf[path], nil
	}
	links := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, l := range outsideFences(string(b)) {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: no such file", file, n+1, target)
					continue
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				a, err := anchors(dest)
				if err != nil {
					t.Fatal(err)
				}
				if !a[anchor] {
					t.Errorf("%s:%d: link %q: %s has no heading with that anchor", file, n+1, target, dest)
				}
			}
		}
	}
	if links < 50 {
		t.Errorf("checked only %d relative links; the pattern no longer finds them", links)
	}
}
