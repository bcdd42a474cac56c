package suite

import (
	"strings"
	"testing"
)

// TestAssertionIDSuggestsName: id: on an assertion is AgentV's name:, which the warning
// suggests (the nearest spelling would be cwd).
func TestAssertionIDSuggestsName(t *testing.T) {
	t.Parallel()
	body := "tests:\n  - id: t\n    input: hi\n    assertions:\n      - id: greet\n        type: contains\n        value: hi\n"
	_, _, ds := loadEnv(t, "a.eval.yaml", body)
	want := `a.eval.yaml:5:9: warning: assertions[]: unknown key "id" (did you mean "name"?)`
	if got := dump(ds); !strings.Contains(got, want) {
		t.Errorf("diagnostics:\n%s\nwant %s", got, want)
	}
}
