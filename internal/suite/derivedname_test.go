package suite

import (
	"slices"
	"testing"
)

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

// TestDerivedNameOfANegatedType: a not- type keeps its not- in the derived name, so a report
// row of not-icontains is not labelled icontains.
func TestDerivedNameOfANegatedType(t *testing.T) {
	t.Parallel()
	body := "tests:\n  - id: t\n    input: hi\n    assertions:\n" +
		"      - type: not-icontains\n        value: sorry\n" +
		"      - type: icontains\n        value: sorry\n" +
		"      - type: contains\n        value: x\n        negate: true\n"
	s, _, ds := loadEnv(t, "a.eval.yaml", body)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var names []string
	for _, g := range s.Tests[0].Graders {
		names = append(names, g.Name)
	}
	// negate: true keeps the type's name, as AgentV names it from the type written.
	if want := []string{"not-icontains-sorry", "icontains-sorry", "contains-x"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
}
