package main

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// count is n nouns, in English.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// terminal reports stdout's width and whether it is a terminal. The width comes from the
// terminal, else COLUMNS, else 0 (no limit: a pipe or a log file).
func terminal(e env) (width int, isTerm bool) {
	if f, ok := e.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w, true
		}
		isTerm = true
	}
	if n, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && n > 0 {
		return n, isTerm
	}
	return 0, isTerm
}
