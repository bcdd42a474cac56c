package reports

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// Check-run annotations: one mark per finding on the eval file line it comes from. Annotation
// messages are plain text on GitHub, so text is sanitized and bounded, not Markdown-escaped.

// Importance of an annotation, for TopAnnotations: what fails the gate first.
const (
	rankRequired = iota // a failed required criterion or grader, or one that missed its minimum
	rankFailed          // any other failed criterion or test
	rankError           // errors: a criterion, grader, test or suite produced no result
	rankWarning         // borderline results and failed optional criteria of passing tests
)

// MaxPostedAnnotations is how many annotations the gate posts: what fits in the one request
// that completes the check run (GitHub takes at most 50 per request). The rest are only in
// check-run.json, so the check never waits on them.
const MaxPostedAnnotations = 50

// TopAnnotations returns the n most important annotations (all when there are no more): failed
// required criteria and graders first, then other failures, then errors, then warnings, each
// group in run order. anns is not modified.
func TopAnnotations(anns []Annotation, n int) []Annotation {
	if len(anns) <= n {
		return anns
	}
	top := slices.Clone(anns)
	slices.SortStableFunc(top, func(a, b Annotation) int { return cmp.Compare(a.rank, b.rank) })
	return top[:max(n, 0):max(n, 0)]
}

// annotations lists the findings worth a mark on the eval file, in run order.
func annotations(v *view, root string) []Annotation {
	var out []Annotation
	for _, s := range v.run.Suites {
		if s == nil {
			continue
		}
		if s.Error != "" {
			out = appendAnn(out, root, s.Path, 1, LevelFailure, s.Name+": suite could not run", s.Error, "", rankError)
		}
		for _, t := range s.Tests {
			if t == nil {
				continue
			}
			out = testAnnotations(out, root, s, t)
		}
	}
	return out
}

func testAnnotations(out []Annotation, root string, s *result.SuiteResult, t *result.TestResult) []Annotation {
	file := orDefault(t.File, s.Path)
	testFailed := t.Verdict != result.Pass && t.Verdict != result.Borderline && t.Verdict != result.Skip
	failed := false
	for _, r := range flatten(nil, t.Graders, "", countGraders(t.Graders) > 1, 0) {
		level, rank := "", rankError
		switch {
		case !r.leaf:
			if r.note != "" { // a grader with criteria: only its own error or gate
				level = LevelFailure
			}
		case r.gated, r.verdict == result.Fail, severity(r.verdict, false) == 2:
			level = LevelFailure
			if r.gated || r.verdict == result.Fail {
				rank = rankFailed
				if r.gated || r.required || r.minScore != nil {
					rank = rankRequired
				}
			}
			if !testFailed && !r.gated {
				level, rank = levelWarning, rankWarning // a failed optional criterion of a test that still passed
			}
		case r.verdict == result.Borderline:
			level, rank = levelWarning, rankWarning
		}
		if level == "" {
			continue
		}
		failed = failed || level == LevelFailure
		line := firstLine(r.line, gLine(r.g), t.Line)
		title := fmt.Sprintf("%s › %s › %s: %s", s.Name, t.Label(), r.label(), verdictPlain(r.verdict, r.gated))
		out = appendAnn(out, root, orDefault(r.file, orDefault(r.g.File, file)), line, level, title, rowMessage(&r, t), rowRaw(&r), rank)
	}
	if !failed && testFailed {
		tv := &testView{t: t}
		msg := fmt.Sprintf("Test %s: %s", t.Label(), verdictWord(t.Verdict))
		if isScored(t.Verdict) {
			msg += fmt.Sprintf(" (score %s, pass ≥ %s)", score(t.Score), score(t.Threshold))
		}
		if n := tv.note(); n != "" {
			msg += "\n" + n
		}
		rank := rankError
		if t.Verdict == result.Fail {
			rank = rankFailed
		}
		out = appendAnn(out, root, file, firstLine(t.Line), LevelFailure, s.Name+" › "+t.Label()+": "+verdictWord(t.Verdict), msg, "", rank)
	}
	return out
}

func gLine(g *result.GraderResult) int {
	if g == nil {
		return 0
	}
	return g.Line
}

// firstLine returns the first positive line, or 1.
func firstLine(lines ...int) int {
	for _, l := range lines {
		if l > 0 {
			return l
		}
	}
	return 1
}

// rowMessage explains a row in plain text (annotation messages are not Markdown).
func rowMessage(r *row, t *result.TestResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", r.label(), verdictWord(r.verdict))
	if r.scored() {
		fmt.Fprintf(&b, ", score %s", score(r.score))
	}
	fmt.Fprintf(&b, ", weight %s", weight(r.weight))
	if r.minScore != nil {
		fmt.Fprintf(&b, ", min %s", score(*r.minScore))
	} else if r.required {
		b.WriteString(", required")
	}
	if r.gated {
		b.WriteString(" — the gate failed the test")
	}
	fmt.Fprintf(&b, "\nTest %s: %s", t.Label(), verdictWord(t.Verdict))
	if isScored(t.Verdict) {
		fmt.Fprintf(&b, " (score %s)", score(t.Score))
	}
	reasoning := r.g.Reasoning
	if r.isCrit {
		if r.c.Outcome != "" {
			b.WriteString("\nExpected: " + r.c.Outcome)
		}
		reasoning = r.c.Reasoning
	}
	if reasoning != "" {
		b.WriteString("\nJudge: " + reasoning)
	}
	if r.note != "" {
		b.WriteString("\n" + r.note)
	}
	return b.String()
}

// rowRaw is the row's raw details: band, raw score, agreement and failed assertions.
func rowRaw(r *row) string {
	var lines []string
	if r.isCrit {
		c := r.c
		if c.Raw != nil {
			lines = append(lines, fmt.Sprintf("raw score: %d", *c.Raw))
		}
		if c.Band != "" {
			lines = append(lines, "band: "+c.Band)
		}
		if a := c.Agreement; a != nil && a.Samples > 1 {
			lines = append(lines, fmt.Sprintf("samples: %d, agreement %.2f, spread %.2f, unstable %t", a.Samples, finite(a.Ratio), finite(a.Spread), a.Unstable))
		}
		return strings.Join(lines, "\n")
	}
	for _, a := range r.g.Assertions {
		if !a.Passed {
			l := "failed: " + a.Text
			if ev := strings.TrimSpace(a.Evidence); ev != "" {
				l += " — " + ev
			}
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// appendAnn adds an annotation with sanitized, bounded text; without a path there is nothing
// to annotate.
func appendAnn(out []Annotation, root, file string, line int, level, title, msg, raw string, rank int) []Annotation {
	p := repoPath(root, file)
	if p == "" {
		return out
	}
	return append(out, Annotation{
		Path: p, StartLine: line, EndLine: line, Level: level,
		Title:      truncate(oneLine(title), maxAnnotationTitleBytes),
		Message:    truncate(strings.TrimSpace(sanitize(msg)), maxAnnotationTextBytes),
		RawDetails: truncate(strings.TrimSpace(sanitize(raw)), maxAnnotationTextBytes),
		rank:       rank,
	})
}

// repoPath makes file repository-relative with forward slashes: relative to root when it is
// absolute and inside root, "./" trimmed.
func repoPath(root, file string) string {
	file = oneLine(file)
	if file == "" {
		return ""
	}
	if root != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(root, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			file = rel
		}
	}
	file = path.Clean(filepath.ToSlash(file))
	return strings.TrimPrefix(file, "./")
}
