package suite

import "testing"

func TestDerivedRegexName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ pattern, want string }{
		{`^ok$`, `regex-^ok$`},
		{"abcdefghijklmnopqrstuvwxyz0123456789", "regex-abcdefghijklmnopqrstuvwxyz0123"},
		// AgentV slices 30 UTF-16 units; a byte cut would end inside "é".
		{"ééééééééééééééééééééééééééééééééé", "regex-éééééééééééééééééééééééééééééé"},
	} {
		if got := derivedName(&Grader{Type: "regex", Value: tc.pattern}); got != tc.want {
			t.Errorf("derivedName(regex %q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}
