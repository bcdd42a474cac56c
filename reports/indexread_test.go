package reports

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/result"
)

// indexOf writes run as index.jsonl and reads it back.
func indexOf(t *testing.T, run *result.Run) *result.Run {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteIndex(&buf, run); err != nil {
		t.Fatal(err)
	}
	back, err := ReadIndex(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestReadIndexRoundTrip: the index.jsonl evalgate writes reads back as the same tests, and
// comparing two runs through it decides every test as comparing the results.json files does.
func TestReadIndexRoundTrip(t *testing.T) {
	t.Parallel()
	base, head := loadRun(t, "base"), loadRun(t, "mixed")
	direct := compare.Compare(base, head, compare.Options{})
	via := compare.Compare(indexOf(t, base), indexOf(t, head), compare.Options{})
	if via.Comparable != direct.Comparable || via.Regressions() != direct.Regressions() || via.PooledRegression() != direct.PooledRegression() {
		t.Fatalf("via index.jsonl: %d comparable, %d regressions, pooled %v; via results.json: %d, %d, %v",
			via.Comparable, via.Regressions(), via.PooledRegression(), direct.Comparable, direct.Regressions(), direct.PooledRegression())
	}
	checked := 0
	for _, d := range via.Tests {
		want := direct.Test(d.Suite, d.ID)
		if want == nil {
			t.Errorf("%s/%s: not in the direct comparison", d.Suite, d.ID)
			continue
		}
		if d.Head != want.Head || d.Base != want.Base || d.Change != want.Change || (d.P == nil) != (want.P == nil) || (d.P != nil && *d.P != *want.P) {
			t.Errorf("%s/%s: via index %s→%s %s p=%v; direct %s→%s %s p=%v", d.Suite, d.ID, d.Base, d.Head, d.Change, d.P, want.Base, want.Head, want.Change, want.P)
		}
		checked++
	}
	t.Logf("%d tests, %d comparable, %d regressions", checked, direct.Comparable, direct.Regressions())
	if checked == 0 || direct.Comparable == 0 {
		t.Fatal("no test compared")
	}
	// Criteria come back under their ids.
	for _, s := range indexOf(t, head).Suites {
		for _, tr := range s.Tests {
			for _, g := range tr.Graders {
				for _, c := range g.Criteria {
					if strings.ContainsAny(c.ID, "[] ") {
						t.Errorf("%s: criterion id %q", tr.ID, c.ID)
					}
				}
			}
		}
	}
}

// TestReadIndexAgentV reads rows as AgentV writes them: its vendored baseline file (no
// execution_status), camelCase aliases, several targets, reruns.
func TestReadIndexAgentV(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../internal/suite/testdata/agentv442/examples/features/weighted-graders/evals/dataset.eval.baseline.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := ReadIndex(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Suites) != 1 || run.Suites[0].Name != "weighted-evaluators-examples" || len(run.Suites[0].Tests) == 0 {
		t.Fatalf("suites: %+v", run.Suites)
	}
	tr := run.Suites[0].Tests[0]
	if tr.ID != "experimental-evaluator-disabled" || tr.Verdict != result.Pass || tr.Score != 1 || len(tr.Graders) != 2 ||
		len(tr.Graders[0].Criteria) != 4 || tr.Graders[1].Weight != 0 {
		t.Fatalf("first test: %+v graders %+v", tr, tr.Graders)
	}

	rows := `{"testId":"a","suite":"s","score":0.9,"target":"gpt","executionStatus":"ok"}
{"test_id":"a","suite":"s","score":0.2,"target":"claude","execution_status":"quality_failure"}

{"test_id":"b","suite":"s","score":0,"target":"gpt","execution_status":"execution_error","error":"timeout"}
{"test_id":"b","suite":"s","score":0.7,"target":"gpt","execution_status":"quality_failure"}
`
	run, err = ReadIndex(strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range run.Suites[0].Tests {
		got = append(got, tr.Label()+":"+string(tr.Verdict))
	}
	if strings.Join(got, " ") != "a@gpt:pass a@claude:fail b@gpt:fail" {
		t.Errorf("tests: %v", got)
	}
}

// TestReadIndexRefuses names the line of a row it cannot read.
func TestReadIndexRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"empty", "\n\n", "no rows"},
		{"not JSON", `{"test_id":"a","score":1}` + "\nnope\n", "line 2:"},
		{"no score", `{"test_id":"a","score":"high"}`, "line 1:"},
		{"missing score", `{"test_id":"a"}`, "line 1: test a: no numeric score"},
		{"no id", `{"score":1}`, "line 1: a row without test_id"},
		{"bad status", `{"test_id":"a","score":1,"execution_status":"maybe"}`, `unknown execution_status "maybe"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadIndex(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
