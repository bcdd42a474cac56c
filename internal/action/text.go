package action

import (
	"io"
	"strings"

	"github.com/evalgate/evalgate/internal/safetext"
)

// The Actions runner reads every line of a step's output as a possible workflow command
// (::add-mask::, ::error::, ::set-env:: …) when it starts with "::". Anything evalgate prints
// that carries repository, agent or model text goes out either on one escaped line (oneLine) or
// between ::stop-commands:: markers (stopped).

// oneLine escapes line breaks and other control characters (safetext.OneLine).
func oneLine(s string) string { return safetext.OneLine(s) }

// stopped writes what print writes to w between ::stop-commands:: markers with a fresh random
// token, so no line of it is honoured as a workflow command and none can end the pause.
func stopped(w io.Writer, print func(w io.Writer)) { safetext.Stopped(w, print) }

// code renders repository text (a path, a glob, a repository name) as a Markdown code span:
// the fence is longer than any backtick run inside, and line breaks and controls are escaped,
// so the text can neither leave the span nor add lines.
func code(s string) string {
	s = oneLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// withNote puts a Markdown note right after the first line of a comment (its hidden marker,
// which the sticky-comment finder expects first).
func withNote(body, note string) string {
	if note == "" {
		return body
	}
	first, rest, _ := strings.Cut(body, "\n")
	return first + "\n" + note + "\n\n" + rest
}
