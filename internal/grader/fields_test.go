package grader

import (
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

func TestFieldAccuracy(t *testing.T) {
	t.Parallel()
	reference := `{"invoice": {"number": "INV-7", "total": 100.0, "date": "2025-01-15", "items": [{"sku": "A1", "qty": 2}]},
		"vendor": "Acme", "due": "03/04/2025", "tags": ["x", "y"]}`
	field := func(path, match string, extra ...any) any {
		m := map[string]any{"path": path}
		if match != "" {
			m["match"] = match
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	tests := []struct {
		name        string
		fields      []any
		aggregation string
		answer      string
		score       float64
		want        result.Verdict
	}{
		{"exact all", []any{field("invoice.number", ""), field("vendor", "exact"), field("invoice.items[0].sku", "exact"), field("tags", "exact")},
			"", `{"invoice": {"number": "INV-7", "items": [{"sku": "A1"}]}, "vendor": "Acme", "tags": ["x", "y"]}`, 1, result.Pass},
		{"fenced answer", []any{field("vendor", "exact")}, "", "Here you go:\n```json\n{\"vendor\": \"Acme\"}\n```\n", 1, result.Pass},
		{"value mismatch weighted", []any{field("vendor", "exact", "weight", 3), field("invoice.number", "exact")},
			"", `{"vendor": "Acme Inc", "invoice": {"number": "INV-7"}}`, 0.25, result.Fail},
		{"type mismatch", []any{field("invoice.items[0].qty", "exact")}, "", `{"invoice": {"items": [{"qty": "2"}]}}`, 0, result.Fail},
		{"numbers by value", []any{field("invoice.items[0].qty", "exact")}, "", `{"invoice": {"items": [{"qty": 2.0}]}}`, 1, result.Pass},
		{"absolute tolerance in", []any{field("invoice.total", "numeric_tolerance", "tolerance", 0.5)}, "", `{"invoice": {"total": 100.5}}`, 1, result.Pass},
		{"absolute tolerance out", []any{field("invoice.total", "numeric_tolerance", "tolerance", 0.5)}, "", `{"invoice": {"total": 100.51}}`, 0, result.Fail},
		{"numeric string", []any{field("invoice.total", "numeric_tolerance", "tolerance", 0.01)}, "", `{"invoice": {"total": "100.00"}}`, 1, result.Pass},
		{"relative tolerance in", []any{field("invoice.total", "numeric_tolerance", "tolerance", 0.05, "relative", true)}, "", `{"invoice": {"total": 104}}`, 1, result.Pass},
		{"relative tolerance out", []any{field("invoice.total", "numeric_tolerance", "tolerance", 0.05, "relative", true)}, "", `{"invoice": {"total": 106}}`, 0, result.Fail},
		{"non-numeric", []any{field("invoice.total", "numeric_tolerance", "tolerance", 1)}, "", `{"invoice": {"total": "lots"}}`, 0, result.Fail},
		{"date iso vs named month", []any{field("invoice.date", "date")}, "", `{"invoice": {"date": "15-JAN-2025"}}`, 1, result.Pass},
		{"date timestamp", []any{field("invoice.date", "date")}, "", `{"invoice": {"date": "2025-01-15T23:30:00-05:00"}}`, 1, result.Pass},
		{"date US slash", []any{field("invoice.date", "date")}, "", `{"invoice": {"date": "01/15/2025"}}`, 1, result.Pass},
		{"date EU inferred", []any{field("invoice.date", "date")}, "", `{"invoice": {"date": "15/01/2025"}}`, 1, result.Pass},
		{"date mismatch", []any{field("invoice.date", "date")}, "", `{"invoice": {"date": "2025-01-16"}}`, 0, result.Fail},
		{"date unparseable", []any{field("invoice.date", "date")}, "", `{"invoice": {"date": "soon"}}`, 0, result.Fail},
		// 03/04/2025 is 4 March read as US (the default for ambiguity) and 3 April read as EU.
		{"date ambiguous default US", []any{field("due", "date")}, "", `{"due": "2025-03-04"}`, 1, result.Pass},
		{"date EU formats", []any{field("due", "date", "formats", []any{"DD/MM/YYYY"})}, "", `{"due": "2025-04-03"}`, 1, result.Pass},
		{"date EU formats mismatch", []any{field("due", "date", "formats", []any{"DD/MM/YYYY"})}, "", `{"due": "2025-03-04"}`, 0, result.Fail},
		{"required missing", []any{field("vendor", "exact"), field("invoice.number", "exact")}, "", `{"vendor": "Acme"}`, 0.5, result.Fail},
		{"optional missing left out", []any{field("vendor", "exact"), field("invoice.number", "exact", "required", false)}, "", `{"vendor": "Acme"}`, 1, result.Pass},
		{"no expected value", []any{field("vendor", "exact"), field("nowhere", "exact")}, "", `{"vendor": "Acme"}`, 1, result.Pass},
		{"all_or_nothing", []any{field("vendor", "exact"), field("invoice.number", "exact")}, "all_or_nothing", `{"vendor": "Acme", "invoice": {"number": "X"}}`, 0, result.Fail},
		{"all_or_nothing pass", []any{field("vendor", "exact"), field("invoice.number", "exact")}, "all_or_nothing", `{"vendor": "Acme", "invoice": {"number": "INV-7"}}`, 1, result.Pass},
		{"unparseable answer", []any{field("vendor", "exact")}, "", "I could not find the invoice.", 0, result.Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := map[string]any{"fields": tt.fields}
			if tt.aggregation != "" {
				p["aggregation"] = tt.aggregation
			}
			test := &suite.Test{ID: "t", ExpectedOutput: []suite.Message{{Role: "assistant", Content: reference}}}
			r := gradeIn(t, spec("field-accuracy", p), &Input{Test: test, Output: &result.Output{Answer: tt.answer}})
			wantResult(t, r, tt.score, tt.want)
		})
	}
}

func TestFieldAccuracyMessages(t *testing.T) {
	t.Parallel()
	p := map[string]any{"fields": []any{map[string]any{"path": "a"}}}
	r := gradeIn(t, spec("field-accuracy", p), &Input{Output: &result.Output{Answer: "nope"}})
	if len(r.Assertions) != 1 || !strings.Contains(r.Assertions[0].Text, "parse the answer as JSON") {
		t.Errorf("assertions %+v", r.Assertions)
	}
	wantResult(t, r, 0, result.Fail)
	// A reference that is not JSON is a failed check, not a crash.
	test := &suite.Test{ID: "t", ExpectedOutput: []suite.Message{{Role: "assistant", Content: "prose"}}}
	r = gradeIn(t, spec("field-accuracy", p), &Input{Test: test, Output: &result.Output{Answer: `{"a": 1}`}})
	wantResult(t, r, 0, result.Fail)
	if len(r.Assertions) != 1 || !strings.Contains(r.Assertions[0].Text, "No expected data") {
		t.Errorf("assertions %+v", r.Assertions)
	}
}

func TestFieldAccuracyConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{}, "needs fields"},
		{map[string]any{"fields": []any{"a"}}, "fields[0]: must be a mapping"},
		{map[string]any{"fields": []any{map[string]any{"match": "exact"}}}, "needs path"},
		{map[string]any{"fields": []any{map[string]any{"path": "a", "match": "fuzzy"}}}, "unknown match"},
		{map[string]any{"fields": []any{map[string]any{"path": "a", "weight": -1}}}, "must not be negative"},
		{map[string]any{"fields": []any{map[string]any{"path": "a", "formats": "YYYY"}}}, "formats must be a list"},
		{map[string]any{"fields": []any{map[string]any{"path": "a"}}, "aggregation": "median"}, "unknown aggregation"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			wantConfigError(t, spec("field-accuracy", tt.params), tt.want)
		})
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		formats  []string
	}{
		{"2025-01-15", "2025-01-15", nil},
		{"2025-01-15T10:00:00Z", "2025-01-15", nil},
		{"January 5, 2024", "2024-01-05", nil},
		{"5-Sept-2024", "2024-09-05", nil},
		{"12-31-2024", "2024-12-31", nil},
		{"31.12.2024", "2024-12-31", nil},
		{"02/03/2024", "2024-03-02", []string{"DD/MM/YYYY"}},
		{"02/03/2024", "2024-02-03", []string{"MM/DD/YYYY"}},
		{"31/02/2024", "", nil}, // no 31 February
		{"13/13/2024", "", nil},
		{"yesterday", "", nil},
	}
	for _, tt := range tests {
		got, ok := parseDate(tt.in, tt.formats)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("parseDate(%q, %v) = %q, %v; want %q", tt.in, tt.formats, got, ok, tt.want)
		}
	}
}
