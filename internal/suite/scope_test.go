package suite

import "testing"

// A test's vars render in its own strings only: not in its id (read before them), and not in
// the tests after it.
func TestVarsStayWithTheirTest(t *testing.T) {
	t.Parallel()
	body := "tests:\n" +
		"  - id: a-{{ who }}\n    vars: {who: world}\n    input: hello {{ who }}\n    criteria: greet {{ who }}\n" +
		"  - id: b\n    input: hello {{ who }}\n    criteria: c\n"
	s, ds := parseString(t, body, nil)
	if s == nil {
		t.Fatal(dump(ds))
	}
	tests := []struct{ id, question, criteria string }{
		{"a-{{ who }}", "hello world", "greet world"},
		{"b", "hello {{ who }}", "c"},
	}
	if len(s.Tests) != len(tests) {
		t.Fatalf("got %d tests, want %d", len(s.Tests), len(tests))
	}
	for i, want := range tests {
		got := s.Tests[i]
		if got.ID != want.id || got.Question() != want.question || got.Criteria != want.criteria {
			t.Errorf("test %d: id %q, question %q, criteria %q; want %q, %q, %q", i, got.ID, got.Question(), got.Criteria, want.id, want.question, want.criteria)
		}
	}
}
