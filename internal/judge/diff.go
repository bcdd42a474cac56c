package judge

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/go-diff/diff"
)

// AnswerBudget is how much of an answer the judge sees (bytes): a runaway agent must not turn
// one grading call into a context-length error or a large bill.
const AnswerBudget = 64 * 1024

// budgetText keeps the head of s within budget bytes (on a UTF-8 boundary) with a note of what
// was left out.
func budgetText(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	cut := budget
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes of the answer left out]", len(s)-cut)
}

// DefaultDiffBudget is how much of a workspace diff the judge sees by default (bytes).
const DefaultDiffBudget = 48 * 1024

// lockFiles are summarised in one line: they are long, generated, and tell a judge nothing.
var lockFiles = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "go.sum": true,
	"Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true, "uv.lock": true,
}

// BudgetDiff cuts a unified diff to about budget bytes by whole files and whole hunks, in
// order, summarising lock files and binary files in one line each, and appends a note of what
// was left out so the judge knows the diff is partial.
func BudgetDiff(d string, budget int) string {
	if d == "" {
		return ""
	}
	fds, err := diff.ParseMultiFileDiff([]byte(d))
	if err != nil || len(fds) == 0 {
		return cutLines(d, budget)
	}
	var b strings.Builder
	var notes []string
	omittedFiles, omittedHunks, omittedBytes := 0, 0, 0
	for _, fd := range fds {
		name := strings.TrimPrefix(strings.TrimPrefix(fd.NewName, "b/"), "a/")
		if name == "/dev/null" {
			name = strings.TrimPrefix(fd.OrigName, "a/")
		}
		if lockFiles[path.Base(name)] || isBinary(fd) {
			notes = append(notes, fmt.Sprintf("[evalgate: %s changed (%s, not shown)]", name, kind(fd)))
			continue
		}
		whole, err := diff.PrintFileDiff(fd)
		if err != nil {
			continue
		}
		if b.Len()+len(whole) <= budget {
			b.Write(whole)
			continue
		}
		// Keep this file's header and as many whole hunks as fit.
		kept := *fd
		kept.Hunks = nil
		for _, h := range fd.Hunks {
			kept.Hunks = append(kept.Hunks, h)
			out, err := diff.PrintFileDiff(&kept)
			if err != nil || b.Len()+len(out) > budget {
				kept.Hunks = kept.Hunks[:len(kept.Hunks)-1]
				break
			}
		}
		if len(kept.Hunks) > 0 {
			out, _ := diff.PrintFileDiff(&kept)
			b.Write(out)
			omittedHunks += len(fd.Hunks) - len(kept.Hunks)
		} else {
			omittedFiles++
			omittedHunks += len(fd.Hunks)
		}
		omittedBytes += len(whole)
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	if omittedHunks > 0 || omittedFiles > 0 {
		fmt.Fprintf(&b, "[evalgate: %d files and %d hunks (about %d KiB) omitted to fit the judge's budget]\n", omittedFiles, omittedHunks, (omittedBytes+1023)/1024)
	}
	return b.String()
}

func isBinary(fd *diff.FileDiff) bool {
	for _, x := range fd.Extended {
		if strings.HasPrefix(x, "Binary files") || strings.HasPrefix(x, "GIT binary patch") {
			return true
		}
	}
	return false
}

func kind(fd *diff.FileDiff) string {
	if isBinary(fd) {
		return "binary"
	}
	return "lock file"
}

// cutLines is the fallback for text that does not parse as a diff: whole lines up to budget.
func cutLines(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	cut := strings.LastIndexByte(s[:budget], '\n')
	if cut < 0 {
		cut = 0
	}
	return s[:cut] + fmt.Sprintf("\n[evalgate: %d bytes omitted to fit the judge's budget]\n", len(s)-cut)
}
