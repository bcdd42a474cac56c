package shard

import (
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/result"
)

func TestDecodeRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		check    func(t *testing.T, run *result.Run)
		wantErr  string
	}{
		{"tests before the suite's path, unknown keys", `{"x": [1, {"y": null}], "suites": [{"tests": [{"id": "a", "verdict": "pass"}, null], "path": "p.yaml", "summary": {"total": 9}}], "schema_version": 1, "shard": "1/2"}`,
			func(t *testing.T, run *result.Run) {
				sr := run.Suites[0]
				if run.SchemaVersion != 1 || run.Shard != "1/2" || sr.Path != "p.yaml" || sr.Summary.Total != 9 || len(sr.Tests) != 2 || sr.Tests[0].ID != "a" || sr.Tests[1] != nil {
					t.Fatalf("decoded %+v, suite %+v", run, sr)
				}
			}, ""},
		{"null and empty", `{"suites": [{"path": "a", "tests": null}, {"path": "b", "tests": []}, {"path": "c"}]}`,
			func(t *testing.T, run *result.Run) {
				if s := run.Suites; s[0].Tests != nil || s[1].Tests == nil || len(s[1].Tests) != 0 || s[2].Tests != nil {
					t.Fatalf("tests %#v %#v %#v, want nil, empty, nil as encoding/json decodes them", s[0].Tests, s[1].Tests, s[2].Tests)
				}
			}, ""},
		{"null suites are skipped", `{"suites": [null, {"path": "a"}]}`, func(t *testing.T, run *result.Run) {
			if len(run.Suites) != 1 || run.Suites[0].Path != "a" {
				t.Fatalf("suites %+v, want only a", run.Suites)
			}
		}, ""},
		{"no suites", `{"suites": null}`, func(t *testing.T, run *result.Run) {
			if run.Suites != nil {
				t.Fatalf("suites %v", run.Suites)
			}
		}, ""},
		{"not an object", `[1]`, nil, "want an object"},
		{"suites not an array", `{"suites": {}}`, nil, "want an array"},
		{"cut short", `{"suites": [{"path": "a", "tests": [{"id": "x"}`, nil, "at byte"},
		{"wrong type", `{"suites": [{"tests": [{"id": 3}]}]}`, nil, "cannot unmarshal number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run, err := decodeRun(strings.NewReader(tt.in), nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, run)
		})
	}
}

func TestReadDurations(t *testing.T) {
	t.Parallel()
	in := `{"schema_version": 1, "suites": [
	  {"path": "a.yaml", "tests": [
	    {"id": "x", "verdict": "pass", "duration_ms": 1500},
	    {"id": "m", "matrix": true, "target": "t1", "verdict": "fail", "duration_ms": 100},
	    {"id": "m", "matrix": true, "target": "t2", "verdict": "error", "duration_ms": 200},
	    {"id": "skipped", "verdict": "skip", "duration_ms": 0},
	    {"id": "trials", "verdict": "pass", "duration_ms": 10, "trials": [{"trial": 1, "duration_ms": 10}, {"trial": 2, "duration_ms": 30}]}]},
	  {"path": "broken.yaml", "error": "bad", "tests": null}]}`
	got, err := ReadDurations(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Durations{{"a.yaml", "x"}: 1500 * time.Millisecond, {"a.yaml", "m"}: 300 * time.Millisecond, {"a.yaml", "trials"}: 40 * time.Millisecond}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%v: %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if _, err := ReadDurations(strings.NewReader(`{"suites": 3}`)); err == nil || !strings.Contains(err.Error(), "reading durations") {
		t.Fatalf("err %v, want a durations error", err)
	}
}
