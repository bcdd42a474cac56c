package safetext

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// legacyEscaped is what NoCommands writes for "##[": `\u005b` is "[" to a JSON reader, so a
// JSON document stays the same document, and to the runner it is no command.
const legacyEscaped = `##\u005b`

// zwsp goes between the colons of a line-leading "::": the runner no longer sees a command,
// and a reader sees the same text.
const zwsp = "\u200b"

// NoCommands neutralises every workflow command in text bound for the job log. The runner
// obeys a line starting with "::" (::error::, ::add-mask:: …; it splits lines on CR as well
// as LF) and the legacy form "##[command]" anywhere in a line. Line breaks are kept: this is
// for whole lines of output, where OneLine is for text put on one of evalgate's own lines.
func NoCommands(text string) string {
	if strings.Contains(text, "##[") {
		text = strings.ReplaceAll(text, "##[", legacyEscaped)
	}
	if !strings.Contains(text, "::") {
		return text
	}
	var b strings.Builder
	start := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if start && (c == ' ' || c == '\t') {
			b.WriteByte(c)
			continue
		}
		if start && strings.HasPrefix(text[i:], "::") {
			b.WriteString(":" + zwsp)
			start = false
			continue
		}
		start = c == '\n' || c == '\r'
		b.WriteByte(c)
	}
	return b.String()
}

// Stopped writes what print writes to w between ::stop-commands:: markers with a fresh random
// token, so no line of it is honoured as a workflow command and none can end the pause. The
// markers pass any LineWriter under w (see Command).
func Stopped(w io.Writer, print func(w io.Writer)) {
	tok := stopToken()
	_ = command(w, "::stop-commands::"+tok)
	print(w)
	fmt.Fprint(w, "\n")
	_ = command(w, "::"+tok+"::")
}

// stopToken is a fresh random token for ::stop-commands::, so text between the markers cannot
// end the pause and issue workflow commands.
func stopToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CommandWriter is a writer for a library that writes only workflow commands of evalgate's
// own (go-githubactions' ::add-mask::): each line it writes passes every LineWriter under w.
type CommandWriter struct{ W io.Writer }

// Write passes each line of p past the filters under c.W, as one of evalgate's own commands.
func (c CommandWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSuffix(string(p), "\n"), "\n") {
		if err := command(c.W, line); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
