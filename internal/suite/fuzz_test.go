package suite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// bomb is the 455-byte shape from issue #11: nested anchors under metadata, which a decoder
// expands to 10^9 nodes.
const bomb = "tests:\n  - id: t\n    input: hi\n    criteria: c\n    metadata:\n" +
	"      a: &a [x,x,x,x,x,x,x,x,x,x]\n" +
	"      b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n" +
	"      c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
	"      d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n" +
	"      e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n" +
	"      f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
	"      g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n" +
	"      h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\n" +
	"      i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"

// parseLimit is how long one input may take to parse; real suites take milliseconds.
const parseLimit = 5 * time.Second

// FuzzParse feeds arbitrary bytes to the eval-file reader. Besides "no panic" and "no suite
// means an error", it checks the expansion bound: no input decodes more than maxDecoded
// nodes or takes longer than parseLimit, and a document that expands past maxNodes is an
// error. Run it with bounded minimisation, so a find on a 2-core machine is reported:
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 30s -fuzzminimizetime 200x ./internal/suite
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
	f.Add([]byte(bomb))
	f.Add([]byte("tests: &t [{id: a, input: hi, criteria: c, metadata: &m [*t]}]\n"))
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\ntests:\n  - {id: t, input: hi, criteria: c, vars: {v: *b}}\n"))
	f.Add([]byte("tests:\n  - id: ${{ INPUT_GITHUB_TOKEN }}\n    input: \"a\\nb\"\n    criteria: c\n"))
	dir := f.TempDir()
	path := filepath.Join(dir, "f.eval.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newReader(path, LoadOptions{Root: dir})
		start := time.Now()
		s, ds := r.parseData(data, path)
		if took := time.Since(start); took > parseLimit {
			t.Fatalf("parse took %v", took)
		}
		if s == nil && !ds.HasErrors() {
			t.Fatal("no suite and no error")
		}
		if r.decoded > maxDecoded+1 {
			t.Fatalf("decoded %d nodes, bound %d", r.decoded, maxDecoded)
		}
		if overBudget(data) && !ds.HasErrors() {
			t.Fatalf("a document past %d nodes was not refused:\n%s", maxNodes, ds.Error())
		}
	})
}

// overBudget reports whether a YAML document expands past maxNodes (forever, for a cycle).
func overBudget(data []byte) bool {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return false
	}
	return measure(&doc, map[*yaml.Node]extent{}).nodes > maxNodes
}

func TestBombsAreRefusedQuickly(t *testing.T) {
	t.Parallel()
	var deep strings.Builder
	deep.WriteString("a0: &a0 [x]\n")
	for i := 1; i <= maxDepth+1; i++ {
		deep.WriteString("a" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [*a" + strconv.Itoa(i-1) + "]\n")
	}
	tests := []struct {
		name      string
		body      string
		line, col int
		want      string
	}{
		{"issue 11 bomb under metadata", bomb, 11, 35, "alias *e expands the file past 1000000 YAML nodes"},
		{"bomb in vars", strings.Replace(bomb, "metadata:", "vars:", 1), 11, 35, "past 1000000 YAML nodes"},
		{"alias into itself", "tests: &t\n  - id: a\n    input: hi\n    criteria: c\n    metadata: [*t]\n", 5, 16, "alias *t refers to a node that contains it"},
		{"deep aliases", deep.String(), 998, 14, "alias *a996 nests the file deeper than 1000 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			s, ds := parseString(t, tt.body, nil)
			if took := time.Since(start); took > parseLimit {
				t.Errorf("took %v", took)
			}
			if s != nil || len(ds) == 0 {
				t.Fatalf("not refused: %s", dump(ds))
			}
			d := ds[0]
			if d.Severity != Error || d.Pos.Line != tt.line || (tt.col != 0 && d.Pos.Col != tt.col) || !strings.Contains(d.Message, tt.want) {
				t.Fatalf("want an error at %d:%d containing %q, got:\n%s", tt.line, tt.col, tt.want, dump(ds))
			}
		})
	}
}

func TestDeepJSONLRowIsRefused(t *testing.T) {
	t.Parallel()
	row := `{"id": "t", "input": "hi", "criteria": "c"}` + "\n" +
		`{"id": "u", "input": "hi", "criteria": "c", "metadata": ` + strings.Repeat("[", maxDepth+5) + strings.Repeat("]", maxDepth+5) + "}\n"
	s, _, ds := loadEnv(t, "x.jsonl", row)
	if s != nil || len(ds) == 0 || ds[0].Pos.File != "x.jsonl" || ds[0].Pos.Line != 2 || !strings.Contains(ds[0].Message, "nests deeper than 1000 levels") {
		t.Fatalf("got:\n%s", dump(ds))
	}
}
