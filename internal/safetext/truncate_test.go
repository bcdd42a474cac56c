package safetext

import (
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 0, ""},
		{"aé", 2, "a"},         // é is 2 bytes: the cut would split it
		{"aé", 3, "aé"},        // exactly fits
		{"a✓b", 2, "a"},        // ✓ is 3 bytes, cut after its first
		{"a✓b", 3, "a"},        // … and after its second
		{"a✓b", 4, "a✓"},       // on the boundary
		{"a😀", 4, "a"},         // 4-byte rune, cut after its third byte
		{"😀", 3, ""},           // nothing fits
		{"a\xffb", 2, "a\xff"}, // invalid byte kept: no rune to split
		{"\x80\x80\x80\x80\x80", 3, "\x80\x80\x80"},
		{"ab\xe2\x9c", 3, "ab\xe2"}, // truncated rune at the end is invalid input, cut as bytes
	} {
		if got := Truncate(tc.s, tc.max); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

func TestTruncateMark(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello world", 8, "hello…"}, // "…" is 3 bytes and counts
		{"héllo world", 5, "h…"},     // é would be split by the 2-byte room
		{"héllo world", 6, "hé…"},
		{"hello", 3, "…"},
		{"hello", 2, "he"}, // no room for the mark: cut bare
		{"héllo", 2, "h"},
		{"hello", 0, ""},
		{"\xff\xfe\xfd\xfc\xfb", 4, "\xff…"},
	} {
		if got := TruncateMark(tc.s, tc.max, "…"); got != tc.want {
			t.Errorf("TruncateMark(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
		if got := TruncateMark(tc.s, tc.max, "…"); len(got) > max(tc.max, 0) {
			t.Errorf("TruncateMark(%q, %d) = %q: %d bytes", tc.s, tc.max, got, len(got))
		}
	}
}

func TestTruncateStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 3, "llo"},
		{"hello", 0, ""},
		{"éa", 2, "a"},   // the cut would split é
		{"a✓b", 2, "b"},  // cut after the first byte of ✓
		{"a✓b", 3, "b"},  // … and after its second
		{"a✓b", 4, "✓b"}, // on the boundary
		{"😀a", 2, "a"},   // 4-byte rune
		{"a\xffb", 2, "\xffb"},
		{"\x80\x80\x80\x80\x80", 2, "\x80\x80"},
	} {
		if got := TruncateStart(tc.s, tc.max); got != tc.want {
			t.Errorf("TruncateStart(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 2, "he"},
		{"héllo", 2, "hé"},
		{"😀😀😀", 1, "😀"},
		{"hello", 0, ""},
		{"a\xffb", 2, "a\xff"}, // an invalid byte counts as one
		{"", 3, ""},
	} {
		if got := TruncateRunes(tc.s, tc.max); got != tc.want {
			t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// FuzzTruncate checks the promises on any input: within the limit, a prefix (suffix) of s,
// and valid UTF-8 in, valid UTF-8 out.
func FuzzTruncate(f *testing.F) {
	f.Add("a✓b😀é", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		for name, got := range map[string]string{"Truncate": Truncate(s, n), "TruncateStart": TruncateStart(s, n)} {
			if len(got) > max(n, 0) {
				t.Errorf("%s(%q, %d) = %q: over the limit", name, s, n, got)
			}
			if utf8.ValidString(s) && !utf8.ValidString(got) {
				t.Errorf("%s(%q, %d) = %q: split a rune", name, s, n, got)
			}
		}
		if got := Truncate(s, n); s[:len(got)] != got {
			t.Errorf("Truncate(%q, %d) = %q: not a prefix", s, n, got)
		}
		if got := TruncateStart(s, n); s[len(s)-len(got):] != got {
			t.Errorf("TruncateStart(%q, %d) = %q: not a suffix", s, n, got)
		}
	})
}
