package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/result"
)

func TestResultsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"all-pass", "mixed", "base", "hostile"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want := loadRun(t, name)
			var buf bytes.Buffer
			if err := WriteResults(&buf, want); err != nil {
				t.Fatal(err)
			}
			got, err := ReadResults(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("generated", func(t *testing.T) {
		t.Parallel()
		want := bigRun(40)
		var buf bytes.Buffer
		if err := WriteResults(&buf, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadResults(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}

func TestWriteResultsStampsVersion(t *testing.T) {
	t.Parallel()
	run := &result.Run{}
	var buf bytes.Buffer
	if err := WriteResults(&buf, run); err != nil {
		t.Fatal(err)
	}
	if run.SchemaVersion != 0 {
		t.Error("WriteResults must not modify its input")
	}
	got, err := ReadResults(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != result.SchemaVersion {
		t.Errorf("schema_version = %d, want %d", got.SchemaVersion, result.SchemaVersion)
	}
}

func TestReadResultsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"empty", "", "empty input"},
		{"not json", "<html>", "invalid character"},
		{"no version", `{"suites": []}`, "no schema_version"},
		{"newer major", `{"schema_version": 2, "suites": []}`, "newer than this evalgate understands"},
		{"wrong type", `{"schema_version": "1"}`, "cannot unmarshal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadResults(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	run, err := ReadResults(strings.NewReader(`{"schema_version": 1, "suites": [], "added_later": {"x": 1}}`))
	if err != nil || run.SchemaVersion != 1 {
		t.Errorf("unknown fields must be ignored: %v", err)
	}
}

// TestResultsStreamedAsEncoded checks that the streamed results.json is byte for byte what an
// indenting encoder writes for the whole run, for every shape a list can take.
func TestResultsStreamedAsEncoded(t *testing.T) {
	t.Parallel()
	withEdges := bigRun(20)
	withEdges.Suites = append(withEdges.Suites, nil, &result.SuiteResult{Name: `"tests": null`, Tests: []*result.TestResult{}},
		&result.SuiteResult{Name: "no tests", Error: `"suites": null <&>`})
	withEdges.Suites[0].Tests = append(withEdges.Suites[0].Tests, nil)
	cases := map[string]*result.Run{
		"mixed": loadRun(t, "mixed"), "hostile": loadRun(t, "hostile"), "edges": withEdges,
		"nil suites": {SchemaVersion: 1}, "empty suites": {SchemaVersion: 1, Suites: []*result.SuiteResult{}},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(run); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := WriteResults(&got, run); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("streamed results.json differs (-encoder +streamed):\n%s", diff)
			}
		})
	}
}

// A results.json is user input (--baseline, export, calibrate): null entries in its lists are
// dropped on reading, so no reader of the run meets a nil suite, test, grader or criterion.
func TestReadResultsDropsNullEntries(t *testing.T) {
	t.Parallel()
	in := `{"schema_version":1,"suites":[null,{"name":"s","tests":[null,{"id":"a","graders":[null,
		{"name":"g","criteria":[null,{"id":"c"}],"members":[null]}],"turns":[null],"trials":[null]}]}]}`
	run, err := ReadResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Suites) != 1 || len(run.Suites[0].Tests) != 1 {
		t.Fatalf("suites/tests not compacted: %+v", run.Suites)
	}
	tr := run.Suites[0].Tests[0]
	if len(tr.Graders) != 1 || len(tr.Graders[0].Criteria) != 1 || len(tr.Graders[0].Members) != 0 ||
		len(tr.Turns) != 0 || len(tr.Trials) != 0 {
		t.Fatalf("test lists not compacted: %+v", tr)
	}
}

// TestCapReader: past its limit a results file is an error, not a shorter run.
func TestCapReader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size, limit int
		wantErr     bool
	}{{10, 10, false}, {10, 11, false}, {11, 10, true}, {100000, 10, true}} {
		c := &capReader{r: strings.NewReader(strings.Repeat("x", tc.size)), n: int64(tc.limit)}
		b, err := io.ReadAll(c)
		if gotErr := errors.Is(err, errTooLarge); gotErr != tc.wantErr || (!tc.wantErr && len(b) != tc.size) {
			t.Errorf("%d bytes, limit %d: read %d, err %v; want error %v", tc.size, tc.limit, len(b), err, tc.wantErr)
		}
	}
}
