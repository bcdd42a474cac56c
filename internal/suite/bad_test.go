package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// parseString loads YAML from a temp dir so relative paths and the root are real.
func parseString(t *testing.T, body string, extra map[string]string) (*Suite, Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range extra {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "evals", "x.eval.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path, LoadOptions{Root: dir})
}

const head = "tests:\n  - id: t\n    input: hi\n    assertions:\n"

func TestBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		// want is "line:col: substring" of an error diagnostic (col 0 = any).
		line, col int
		want      string
		extra     map[string]string
	}{
		{"overlapping ranges", head + "      - type: rubrics\n        criteria:\n          - id: acc\n            score_ranges:\n              - {score_range: [0, 5], outcome: low}\n              - {score_range: [5, 10], outcome: high}\n", 10, 31, "overlaps [0, 5] at 5", nil},
		{"gapped ranges", head + "      - type: rubrics\n        criteria:\n          - id: acc\n            score_ranges:\n              - {score_range: [0, 3], outcome: low}\n              - {score_range: [6, 10], outcome: high}\n", 9, 15, "scores 4, 5 uncovered", nil},
		{"out of range", head + "      - type: rubrics\n        criteria:\n          - id: acc\n            score_ranges:\n              - {score_range: [0, 11], outcome: all}\n", 9, 31, "within 0-10", nil},
		{"map ranges not starting at 0", head + "      - type: rubrics\n        criteria:\n          - id: acc\n            score_ranges:\n              3: ok\n              7: good\n", 9, 15, "must start at 0", nil},
		{"duplicate map range", head + "      - type: rubrics\n        criteria:\n          - id: acc\n            score_ranges:\n              0: bad\n              0: worse\n", 10, 15, "defined twice", nil},
		{"range without text", head + "      - type: rubrics\n        criteria:\n          - id: acc\n            score_ranges:\n              0: \"\"\n              5: ok\n", 9, 18, "has no description", nil},
		{"negative weight", head + "      - type: rubrics\n        criteria:\n          - id: a\n            outcome: x\n            weight: -1\n", 9, 21, "must not be negative", nil},
		{"non-numeric weight", head + "      - type: contains\n        value: x\n        weight: heavy\n", 7, 17, `weight must be a number, not "heavy"`, nil},
		{"duplicate test ids", "tests:\n  - id: t\n    input: a\n    criteria: c\n  - id: t\n    input: b\n    criteria: c\n", 5, 5, `duplicate test id "t"`, nil},
		{"duplicate criterion ids", head + "      - type: rubrics\n        criteria:\n          - {id: a, outcome: x}\n          - {id: a, outcome: y}\n", 8, 13, `duplicate criterion id "a"`, nil},
		{"missing test id", "tests:\n  - input: a\n    criteria: c\n", 2, 5, "test has no id", nil},
		{"unknown grader type", head + "      - type: containz\n        value: x\n", 5, 15, `unknown grader type "containz" (did you mean "contains"?)`, nil},
		{"yaml syntax", "tests:\n  - id: t\n    input: [unclosed\n", 2, 0, "YAML syntax", nil},
		{"tests is a number", "tests: 5\n", 1, 8, "tests must be a list of tests or a path to them", nil},
		{"criteria of numbers", head + "      - type: rubrics\n        criteria: [1, 2]\n", 6, 20, "must be text or a criterion object", nil},
		{"required number out of range", head + "      - type: contains\n        value: x\n        required: 1.5\n", 7, 19, "minimum score in (0, 1]", nil},
		{"min_score out of range", head + "      - type: rubrics\n        criteria:\n          - {id: a, outcome: x, min_score: 0}\n", 7, 44, "min_score must be in (0, 1]", nil},
		{"required_min_score out of range", head + "      - type: rubrics\n        criteria:\n          - {id: a, outcome: x, required_min_score: 12}\n", 7, 53, "required_min_score must be an integer 0-10", nil},
		{"checklist item without outcome", head + "      - type: rubrics\n        criteria:\n          - id: a\n            weight: 2\n", 7, 13, "criterion a has no outcome", nil},
		{"bad regex", head + "      - type: regex\n        value: \"(unclosed\"\n", 6, 16, "regex does not compile", nil},
		{"contains-any empty", head + "      - type: contains-any\n        value: []\n", 6, 16, "non-empty list", nil},
		{"latency without threshold", head + "      - type: latency\n", 5, 9, "latency grader needs threshold", nil},
		{"threshold out of range", "execution:\n  threshold: 80\n" + head + "      - type: is-json\n", 2, 14, "between 0 and 1", nil},
		{"test without input", "tests:\n  - id: t\n    criteria: c\n", 2, 5, "test t has no input", nil},
		{"test without criteria or assertions", "tests:\n  - id: t\n    input: hi\n", 2, 5, "needs criteria, expected_output or assertions", nil},
		{"file:// escaping the root", "tests:\n  - file://../../../etc/passwd\n", 2, 5, "outside the repository root", nil},
		{"input_files escaping the root", "tests:\n  - id: t\n    input: hi\n    criteria: c\n    input_files: [../../secret.txt]\n", 5, 19, "outside the repository root", nil},
		{"include cycle", head + "      - include: a\n", 2, 14, "include cycle", map[string]string{
			".agentv/templates/a.yaml": "assertions:\n  - include: b\n",
			".agentv/templates/b.yaml": "assertions:\n  - include: a\n",
		}},
		{"empty file", "", 0, 0, "empty file", nil},
		{"only a comment", "# nothing here\n", 0, 0, "empty file", nil},
		{"binary garbage", "\x00\x01\x02\xff\xfe", 0, 0, "not a text file", nil},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ntests: [*h]\n", 0, 0, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			done := make(chan Diagnostics, 1)
			var s *Suite
			go func() {
				var ds Diagnostics
				s, ds = parseString(t, tt.body, tt.extra)
				done <- ds
			}()
			var ds Diagnostics
			select {
			case ds = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("loading hung")
			}
			if !ds.HasErrors() || s != nil {
				t.Fatalf("no error; diagnostics:\n%v", ds)
			}
			for _, d := range ds {
				if d.Severity == Error && strings.Contains(d.Message, tt.want) &&
					(tt.line == 0 || d.Pos.Line == tt.line) && (tt.col == 0 || d.Pos.Col == tt.col) {
					return
				}
			}
			t.Fatalf("want an error at %d:%d containing %q; got:\n%s", tt.line, tt.col, tt.want, dump(ds))
		})
	}
}

func dump(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

func TestUnknownKeyWarns(t *testing.T) {
	t.Parallel()
	s, ds := parseString(t, "tests:\n  - id: t\n    input: hi\n    critera: typo\n    expected_output: x\n", nil)
	if s == nil || ds.HasErrors() {
		t.Fatalf("a typo should warn, not fail:\n%s", dump(ds))
	}
	if len(ds) != 1 || ds[0].Pos.Line != 4 || !strings.Contains(ds[0].Message, `did you mean "criteria"?`) {
		t.Fatalf("got:\n%s", dump(ds))
	}
}

func TestLargeFileRefusedWithoutReading(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.eval.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil { // sparse: 50 MB without writing it
		t.Fatal(err)
	}
	f.Close()
	s, ds := Load(path, LoadOptions{})
	if s != nil || len(ds) != 1 || !strings.Contains(ds[0].Message, "file too large (52428800 bytes, limit 10485760)") {
		t.Fatalf("got %v", ds)
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []string{
		"testdata/agentv-examples/v4.42.4/features/rubric/evals/dataset.eval.yaml",
		"testdata/agentv-examples/legacy-2025-12/features/evals/rubric/rubric-examples.yaml",
		"testdata/agentv-examples/next-5.3.1/features/readme-quickstart/evals/my-eval.eval.yaml",
	} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(head + "      - type: rubrics\n        criteria:\n          - {id: a, score_ranges: {0: x, 5: y}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ds := Parse(data, filepath.Join(t.TempDir(), "f.eval.yaml"), LoadOptions{})
		if s == nil && !ds.HasErrors() {
			t.Fatal("no suite and no error")
		}
	})
}
