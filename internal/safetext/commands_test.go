package safetext

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
)

// obeyed reports whether the runner would read a workflow command in out: a line (split on CR
// and LF) starting with "::" after spaces, or "##[" anywhere.
func obeyed(out string) bool {
	for _, line := range regexp.MustCompile(`\r\n|\r|\n`).Split(out, -1) {
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") || strings.Contains(line, "##[") {
			return true
		}
	}
	return false
}

func TestNoCommands(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"evals/x##[error]boom.eval.yaml:1:1: error: bad\n", "evals/x##\\u005berror]boom.eval.yaml:1:1: error: bad\n"},
		{"::error::boom\n", ":\u200b:error::boom\n"},
		{"  ::warning file=a::b", "  :\u200b:warning file=a::b"},
		{"ok\r::add-mask::x\n", "ok\r:\u200b:add-mask::x\n"},
		{"a::b is fine", "a::b is fine"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		got := NoCommands(tt.in)
		if got != tt.want {
			t.Errorf("NoCommands(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if obeyed(got) {
			t.Errorf("NoCommands(%q) = %q still carries a command", tt.in, got)
		}
	}
	// In JSON the escape is lossless: the document reads the same.
	b, _ := json.Marshal(map[string]string{"id": "x##[error]boom"})
	var back map[string]string
	if err := json.Unmarshal([]byte(NoCommands(string(b))), &back); err != nil || back["id"] != "x##[error]boom" {
		t.Fatalf("JSON changed: %v %q", err, back)
	}
}

func TestLineWriterFiltersWholeLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	w := Lines(&b, NoCommands)
	// A command split across writes is still seen whole.
	fmt.Fprint(w, "progress ok\n#")
	fmt.Fprint(w, "#[err")
	fmt.Fprint(w, "or]x\n:")
	fmt.Fprint(w, ":error::y")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if obeyed(b.String()) || !strings.HasPrefix(b.String(), "progress ok\n") {
		t.Fatalf("got %q", b.String())
	}
}

func TestCommandsPassEveryFilter(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	inner := Lines(&b, NoCommands)
	outer := Lines(inner, strings.ToUpper)
	fmt.Fprint(outer, "partial")
	if err := command(outer, "::add-mask::s3cret"); err != nil {
		t.Fatal(err)
	}
	Stopped(outer, func(w io.Writer) { fmt.Fprint(w, "::error::inside\n") })
	_ = outer.Flush()
	_ = inner.Flush()
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "PARTIAL" || lines[1] != "::add-mask::s3cret" || !strings.HasPrefix(lines[2], "::stop-commands::") {
		t.Fatalf("got %q", b.String())
	}
	tok := strings.TrimPrefix(lines[2], "::stop-commands::")
	if len(tok) != 32 || lines[3] != ":\u200b:ERROR::INSIDE" || !strings.Contains(b.String(), "\n::"+tok+"::\n") {
		t.Fatalf("got %q", b.String())
	}
	// CommandWriter hands each line to Command.
	var c strings.Builder
	cw := CommandWriter{W: Lines(&c, NoCommands)}
	fmt.Fprint(cw, "::add-mask::a\n::add-mask::b\n")
	if c.String() != "::add-mask::a\n::add-mask::b\n" {
		t.Fatalf("got %q", c.String())
	}
}
