package action

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                       "plain",
		"a\n::add-mask::x":            `a\n::add-mask::x`,
		"a\r::error::x":               `a\r::error::x`,
		"tab\tbell\a":                 `tab\u0009bell\u0007`,
		"evals/é/ünïcode.eval.yaml":   "evals/é/ünïcode.eval.yaml",
		"next line\u0085::warning::x": `next line\u0085::warning::x`,
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"evals/a.eval.yaml": "`evals/a.eval.yaml`",
		"a`b":               "``a`b``",
		"`x":                "`` `x ``",
		"a\n# heading":      "`a\\n# heading`",
		"":                  "`  `",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStopped(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	stopped(&b, func(w io.Writer) { fmt.Fprint(w, "answer\n::add-mask::x\n") })
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	tok := strings.TrimPrefix(lines[0], "::stop-commands::")
	if len(tok) != 32 || lines[len(lines)-1] != "::"+tok+"::" || !strings.Contains(b.String(), "\n::add-mask::x\n") {
		t.Fatalf("not wrapped:\n%s", b.String())
	}
	var again bytes.Buffer
	stopped(&again, func(io.Writer) {})
	if strings.Contains(again.String(), tok) {
		t.Fatal("the token was reused")
	}
}

func TestWithNote(t *testing.T) {
	t.Parallel()
	got := withNote("<!-- marker -->\n## results\n", "> note")
	if got != "<!-- marker -->\n> note\n\n## results\n" {
		t.Fatalf("%q", got)
	}
	if withNote("<!-- m -->\nx", "") != "<!-- m -->\nx" {
		t.Fatal("an empty note changed the body")
	}
}
