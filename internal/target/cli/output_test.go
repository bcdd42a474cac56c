package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"last lines joined", "a\nb\nc\nd\ne\nf\ng\n", "c | d | e | f | g"},
		{"control characters dropped", "ok\x1b[31m\n", "ok[31m"},
		// 499 bytes of "x" after "é": the 500-byte cut would keep é's second byte.
		{"no split rune", "é" + strings.Repeat("x", 499), strings.Repeat("x", 499)},
	} {
		got := tail([]byte(tc.in))
		if got != tc.want {
			t.Errorf("%s: tail = %q, want %q", tc.name, got, tc.want)
		}
		if !utf8.ValidString(got) || len(got) > 500 {
			t.Errorf("%s: tail = %q: invalid or over 500 bytes", tc.name, got)
		}
	}
}
