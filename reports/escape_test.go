package reports

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "hello\tworld\n", "hello\tworld\n"},
		{"CSI colour", "\x1b[31mred\x1b[0m", "red"},
		{"clear screen", "a\x1b[2J\x1b[Hb", "ab"},
		{"OSC 8 hyperlink BEL", "\x1b]8;;https://evil\x07link\x1b]8;;\x07", "link"},
		{"OSC title ST", "\x1b]0;pwned\x1b\\ok", "ok"},
		{"two-byte escape", "a\x1bcb", "ab"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 OSC", "a\u009d0;t\u009cb", "ab"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"CR and CRLF", "a\r\nb\rc", "a\nb\nc"},
		{"bell backspace NUL DEL", "a\a\b\x00\x7fb", "ab"},
		{"bidi override", "txt\u202egnp.exe\u2066x\u2069", "txtgnp.exex"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"keeps unicode", "héllo ✅ 日本", "héllo ✅ 日本"},
		{"malformed CSI", "\x1b[12\x01x", "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := sanitize(tc.in); got != tc.want {
				t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"hello world", 8, "hello…"},
		{"日本語日本語", 8, "日…"},
		{"abcdef", 2, "ab"},
		{"日本", 2, ""},
		{"abc", 0, ""},
		{"abc", -5, ""},
	}
	for _, tc := range tests {
		got := truncate(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if !utf8.ValidString(got) || len(got) > max(tc.max, 0) {
			t.Errorf("truncate(%q, %d) = %q: invalid or too long", tc.in, tc.max, got)
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"pipes in a cell", mdText, "a | b", `a \| b`},
		{"newlines in a cell", mdText, "a\nb\r\nc", "a b c"},
		{"details close", mdText, "</details>", "&lt;/details&gt;"},
		{"marker forgery", mdText, "<!-- evalgate:comment key=x -->", "&lt;!-- evalgate:comment key=x --&gt;"},
		{"link", mdText, "[click](javascript:alert(1))", `\[click\](javascript:alert(1))`},
		{"image", mdText, "![x](https://e/x.png)", `!\[x\](https://e/x.png)`},
		{"autolink", mdText, "<https://evil.example>", "&lt;https://evil.example&gt;"},
		{"bare URL left alone", mdText, "see https://example.com/a", "see https://example.com/a"},
		{"html tag", mdText, `<img src=x onerror="a()">`, `&lt;img src=x onerror="a()"&gt;`},
		{"entity stays literal", mdText, "&lt;b&gt;", "&amp;lt;b&amp;gt;"},
		{"mention", mdText, "@octocat hi", "@" + zwsp + "octocat hi"},
		{"team mention", mdText, "cc @acme/security", "cc @" + zwsp + "acme/security"},
		{"lone at", mdText, "a @ b", "a @ b"},
		{"issue ref untouched", mdText, "fixes #123", "fixes #123"},
		{"emphasis and code", mdText, "*b* _i_ `c` ~~s~~ $m$", `\*b\* \_i\_ \` + "`c\\`" + ` \~\~s\~\~ \$m\$`},
		{"backslash", mdText, `a\|b`, `a\\\|b`},
		{"control chars", mdText, "a\x1b[31mb", "ab"},
		{"lines keep breaks", mdLines, "one\ntwo\n\n# three", "one<br>two<br><br># three"},
		{"lines trim", mdLines, "\n  x  \n", "x"},
		{"html context", htmlText, `<b>"x" & 'y'</b> @dev`, "&lt;b&gt;&#34;x&#34; &amp; &#39;y&#39;&lt;/b&gt; @" + zwsp + "dev"},
		{"html one line", htmlText, "a\n\nb", "a b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.fn(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCodeSpan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		inTable bool
		want    string
	}{
		{"plain", false, "`plain`"},
		{"a`b", false, "``a`b``"},
		{"a``b`c", false, "```a``b`c```"},
		{"`start", false, "`` `start ``"},
		{"end`", false, "`` end` ``"},
		{"` both `", false, "`` ` both ` ``"},
		{"a|b", true, "`a\\|b`"},
		{"a|b", false, "`a|b`"},
		{"<!-- evalgate:comment -->", false, "`<!\u200b-- evalgate:comment -->`"},
		{"multi\nline", false, "`multi line`"},
		{"", false, "*(empty)*"},
		{"\x1b[31m", false, "*(empty)*"},
	}
	for _, tc := range tests {
		if got := codeSpan(tc.in, tc.inTable); got != tc.want {
			t.Errorf("codeSpan(%q, %t) = %q, want %q", tc.in, tc.inTable, got, tc.want)
		}
	}
}

func TestFenced(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain", "```text\nplain\n```\n"},
		{"has ``` fence\n", "````text\nhas ``` fence\n````\n"},
		{"````\nfour\n````", "`````text\n````\nfour\n````\n`````\n"},
		{"</details>\n<!-- evalgate:comment -->", "```text\n</details>\n<!\u200b-- evalgate:comment -->\n```\n"},
		{"\x1b[31mred\x1b[0m", "```text\nred\n```\n"},
		{"", "```text\n\n```\n"},
	}
	for _, tc := range tests {
		if got := fenced(tc.in, "text"); got != tc.want {
			t.Errorf("fenced(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeMarker(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"<!-- evalgate:comment key=a/b -->", "<!-- evalgate:comment key=a/b -->"},
		{"evalgate:comment key=x", "<!-- evalgate:comment key=x -->"},
		{"<!-- a --> <b>x</b> <!-- c -->", "<!-- a - bx/b - c -->"},
		{"<!-- open", "<!-- - open -->"},
		{"line\nbreak -->", "<!-- line break - -->"},
		{"", ""},
	}
	for _, tc := range tests {
		got := normalizeMarker(tc.in)
		if got != tc.want {
			t.Errorf("normalizeMarker(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got != "" && (strings.Count(got, "<!--") != 1 || strings.Count(got, "-->") != 1 || !strings.HasSuffix(got, "-->")) {
			t.Errorf("normalizeMarker(%q) = %q is not one closed comment", tc.in, got)
		}
	}
}

func TestSafeURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://github.com/o/r/actions/runs/1", "https://github.com/o/r/actions/runs/1"},
		{"http://ghe.local/x?y=1#z", "http://ghe.local/x?y=1#z"},
		{"javascript:alert(1)", ""},
		{"https://x/a)b", ""},
		{"https://x/a b", ""},
		{"https://x/<b>", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := safeURL(tc.in); got != tc.want {
			t.Errorf("safeURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{0, "░░░░░░░░"},
		{0.56, "████▌░░░"},
		{0.5, "████░░░░"},
		{1, "████████"},
		{1.7, "████████"},
		{-1, "░░░░░░░░"},
		{0.01, "▏░░░░░░░"},
	}
	for _, tc := range tests {
		got := bar(tc.in)
		if got != tc.want {
			t.Errorf("bar(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n != barWidth {
			t.Errorf("bar(%v) has %d cells", tc.in, n)
		}
	}
}
