package judge

import (
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"

	"github.com/evalgate/evalgate/internal/safetext"
)

// answerBudget is how much of an answer the judge sees (bytes): a runaway agent must not turn
// one grading call into a context-length error or a large bill.
const answerBudget = 64 * 1024

// budgetText keeps the head of s within budget bytes (on a UTF-8 boundary) with a note of what
// was left out.
func budgetText(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	head := safetext.Truncate(s, budget)
	return head + fmt.Sprintf("\n[… %d more bytes of the answer left out]", len(s)-len(head))
}

// defaultDiffBudget is how much of a workspace diff the judge sees by default (bytes).
const defaultDiffBudget = 48 * 1024

// budgetDiff fits a unified diff into about budget bytes. A diff that fits is shown as it
// is. A larger one is shared fairly across its files rather than filled in file order, so a
// change whose first files are generated still shows the source the rubric is about: source
// files get the budget first, generated, vendored and lock files what is left, and binary
// files one line. A note names every file shown in part or left out, so the judge knows the
// diff is partial and where.
func budgetDiff(d string, budget int) string {
	if d == "" {
		return ""
	}
	if len(d) <= budget && !strings.Contains(d, "GIT binary patch") {
		return d
	}
	files := splitGit(d)
	if files == nil {
		fds, err := diff.ParseMultiFileDiff([]byte(d))
		if err != nil || len(fds) == 0 {
			return cutLines(d, budget)
		}
		files = fromFileDiffs(fds)
	}
	classifyAll(files)
	return fitFiles(files, len(d), budget)
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
