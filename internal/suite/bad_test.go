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
		{"promptfoo description, no id", "tests:\n  - description: Says Hello, politely!\n    input: a\n    criteria: c\n", 2, 5, "test has no id (promptfoo's description names no test here: add id: says-hello-politely)", nil},
		{"bad background_processes", "execution:\n  background_processes: ignore\ntests:\n  - id: t\n    input: a\n    criteria: c\n", 2, 25, `execution.background_processes must be kill or error, not "ignore"`, nil},
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
		// Problem matchers skip errors without line and column: file-level errors are at 1:1.
		{"empty file", "", 1, 1, "empty file", nil},
		{"only a comment", "# nothing here\n", 1, 1, "empty file", nil},
		{"binary garbage", "\x00\x01\x02\xff\xfe", 1, 1, "not a text file", nil},
		{"yaml syntax has a column", "tests:\n  - id: t\n    input: [unclosed\n", 2, 1, "YAML syntax", nil},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ntests: [*h]\n", 7, 0, "past 1000000 YAML nodes", nil},
		{"input is a number", "tests:\n  - id: t\n    input: 123\n    criteria: c\n", 3, 12, `input must be text, a message or a list of messages, not "123"`, nil},
		{"input is a boolean", "tests:\n  - id: t\n    input: true\n    criteria: c\n", 3, 12, `input must be text, a message or a list of messages, not "true"`, nil},
		{"suite input is a number", "input: 4.5\ntests:\n  - id: t\n    input: hi\n    criteria: c\n", 1, 8, "input must be text", nil},
		{"number as a criterion", head + "      - 42\n", 5, 9, `assertions[]: "42" is not a criterion`, nil},
		{"blank bare criterion", head + "      - \"  \"\n", 5, 9, "blank criterion", nil},
		{"blank criteria item", head + "      - type: rubrics\n        criteria: [\"\", ok]\n", 6, 20, "criteria[0] is blank", nil},
		{"blank rubrics item", "tests:\n  - id: t\n    input: hi\n    rubrics: [ok, \"\\t\"]\n", 4, 19, "rubrics[1] is blank", nil},
		{"whitespace outcome", head + "      - type: rubrics\n        criteria:\n          - {id: a, outcome: \" \"}\n", 7, 13, "criterion a has no outcome", nil},
		{"blank llm-rubric value", head + "      - type: llm-rubric\n        value: \" \"\n", 6, 16, "llm-rubric value is blank", nil},
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

// TestEveryDiagnosticHasLineAndCol: GitHub problem matchers skip "file: message" lines.
func TestEveryDiagnosticHasLineAndCol(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{"empty.eval.yaml": "", "bin.eval.yaml": "\x00", "rows.jsonl": "{\"id\": 1\n", "t.yaml": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, missing := Load(filepath.Join(dir, "missing.eval.yaml"), LoadOptions{Root: dir})
	_, empty := Load(filepath.Join(dir, "empty.eval.yaml"), LoadOptions{Root: dir})
	_, bin := Load(filepath.Join(dir, "bin.eval.yaml"), LoadOptions{Root: dir})
	_, rows := Load(filepath.Join(dir, "rows.jsonl"), LoadOptions{Root: dir})
	_, targets := LoadTargetsWith(filepath.Join(dir, "t.yaml"), LoadOptions{Root: dir})
	for _, ds := range []Diagnostics{missing, empty, bin, rows, targets} {
		if len(ds) == 0 {
			t.Fatal("no diagnostics")
		}
		for _, d := range ds {
			if d.Pos.Line == 0 || d.Pos.Col == 0 || !strings.HasPrefix(d.String(), d.Pos.File+":") {
				t.Errorf("%q has no line:col", d.String())
			}
		}
	}
	if got := empty[0].String(); got != "empty.eval.yaml:1:1: error: empty file" {
		t.Errorf("empty file: %q", got)
	}
}

func dump(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
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

// TestBackgroundProcesses reads execution.background_processes, which says whether an agent
// leaving background processes errors its test (error) or is only noted (kill, the default).
func TestBackgroundProcesses(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		"": "",
		"execution:\n  background_processes: kill\n":  "kill",
		"execution:\n  background_processes: error\n": "error",
	} {
		s, diags := parseString(t, body+"tests:\n  - id: t\n    input: a\n    criteria: c\n", nil)
		if diags.HasErrors() || s.BackgroundProcesses != want {
			t.Errorf("%q: BackgroundProcesses = %q, want %q (%v)", body, s.BackgroundProcesses, want, diags)
		}
	}
}
