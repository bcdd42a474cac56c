package safetext

import "testing"

func TestOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain id":             "plain id",
		"a\n::add-mask::x":     `a\n::add-mask::x`,
		"cr\r::error::x":       `cr\r::error::x`,
		"esc\x1b[31mred":       `esc\u001b[31mred`,
		"tab\tand unicode é ✓": `tab\u0009and unicode é ✓`,
		"":                     "",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
