package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// agentvRowKeys is AgentV's IndexArtifactEntry field list (agentv.md §6.2); a row may carry
// only these, and must carry the ones AgentV's readers need.
var (
	agentvRowKeys = setOf("timestamp", "test_id", "suite", "category", "conversation_id", "experiment", "score",
		"target", "token_usage", "cost_usd", "duration_ms", "start_time", "end_time", "scores", "execution_status",
		"error", "failure_stage", "failure_reason_code", "workspace_path", "artifact_dir", "grading_path",
		"timing_path", "output_path", "answer_path", "transcript_path", "input_path", "response_path", "task_dir",
		"eval_path", "targets_path", "files_path", "graders_path", "projection_identity", "export_metadata", "metadata")
	requiredRowKeys = []string{"timestamp", "test_id", "suite", "score", "target", "token_usage", "cost_usd",
		"duration_ms", "scores", "execution_status"}
	agentvScoreKeys = setOf("name", "type", "score", "weight", "verdict", "assertions", "raw_request", "input",
		"target", "scores", "details", "token_usage", "duration_ms", "started_at", "ended_at")
	requiredScoreKeys = []string{"name", "type", "score", "weight", "verdict", "assertions"}
	snakeCase         = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
)

func setOf(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

func TestIndexRowsMatchAgentV(t *testing.T) {
	t.Parallel()
	runs := map[string]*result.Run{"mixed": loadRun(t, "mixed"), "all-pass": loadRun(t, "all-pass"),
		"hostile": loadRun(t, "hostile"), "large": bigRun(60)}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteIndex(&buf, run); err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, s := range run.Suites {
				for _, tr := range s.Tests {
					if tr.Verdict != result.Skip {
						want++
					}
				}
			}
			sc := bufio.NewScanner(&buf)
			sc.Buffer(nil, 1<<24)
			rows := 0
			for sc.Scan() {
				rows++
				var row map[string]any
				if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
					t.Fatalf("row %d: %v", rows, err)
				}
				checkKeys(t, "row", row, agentvRowKeys, requiredRowKeys)
				if _, ok := row["score"].(float64); !ok {
					t.Errorf("row %d: score %v is not a number", rows, row["score"])
				}
				switch row["execution_status"] {
				case "ok", "quality_failure", "execution_error":
				default:
					t.Errorf("row %d: execution_status %v", rows, row["execution_status"])
				}
				tu, _ := row["token_usage"].(map[string]any)
				for _, k := range []string{"input", "output", "cached"} {
					if _, ok := tu[k].(float64); !ok {
						t.Errorf("row %d: token_usage.%s missing", rows, k)
					}
				}
				scores, _ := row["scores"].([]any)
				checkScores(t, scores)
			}
			if rows != want {
				t.Errorf("%d rows, want %d (one per test that ran)", rows, want)
			}
		})
	}
}

func checkScores(t *testing.T, scores []any) {
	t.Helper()
	for _, s := range scores {
		sc, _ := s.(map[string]any)
		checkKeys(t, "score", sc, agentvScoreKeys, requiredScoreKeys)
		if _, ok := sc["score"].(float64); !ok {
			t.Errorf("scores[].score %v is not a number", sc["score"])
		}
		switch sc["verdict"] {
		case "pass", "fail", "skip":
		default:
			t.Errorf("scores[].verdict %v is not pass|fail|skip", sc["verdict"])
		}
		if sc["type"] == "rubrics" || sc["type"] == "likert" {
			t.Errorf("rubric graders must be typed llm-grader, got %v", sc["type"])
		}
		as, ok := sc["assertions"].([]any)
		if !ok {
			t.Errorf("scores[].assertions is not an array: %v", sc["assertions"])
		}
		for _, a := range as {
			am, _ := a.(map[string]any)
			if _, ok := am["text"].(string); !ok {
				t.Errorf("assertion without text: %v", am)
			}
			if _, ok := am["passed"].(bool); !ok {
				t.Errorf("assertion without passed: %v", am)
			}
		}
		if kids, ok := sc["scores"].([]any); ok {
			checkScores(t, kids)
		}
	}
}

func checkKeys(t *testing.T, what string, m map[string]any, allowed map[string]bool, required []string) {
	t.Helper()
	for k := range m {
		if !allowed[k] {
			t.Errorf("%s key %q is not in AgentV's schema", what, k)
		}
		if !snakeCase.MatchString(k) {
			t.Errorf("%s key %q is not snake_case", what, k)
		}
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q", what, k)
		}
	}
}

func TestIndexMapping(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteIndex(&buf, loadRun(t, "mixed")); err != nil {
		t.Fatal(err)
	}
	byID := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		byID[row["test_id"].(string)] = row
	}
	tests := []struct{ id, status, scoreVerdict, evalgate string }{
		{"rename-helper", "ok", "pass", "pass"},
		{"fix-null-check", "quality_failure", "fail", "fail"},
		{"add-retry", "quality_failure", "fail", "borderline"},
		{"migrate-config", "execution_error", "", ""},
		{"judge-flake", "execution_error", "fail", "error"},
		{"escalation", "quality_failure", "fail", "fail"},
	}
	for _, tc := range tests {
		row := byID[tc.id]
		if row == nil {
			t.Errorf("%s: no row", tc.id)
			continue
		}
		if row["execution_status"] != tc.status {
			t.Errorf("%s: execution_status %v, want %s", tc.id, row["execution_status"], tc.status)
		}
		scores := row["scores"].([]any)
		if tc.scoreVerdict == "" {
			if len(scores) != 0 {
				t.Errorf("%s: want no scores", tc.id)
			}
			continue
		}
		first := scores[0].(map[string]any)
		details := first["details"].(map[string]any)
		if first["verdict"] != tc.scoreVerdict || details["evalgate_verdict"] != tc.evalgate {
			t.Errorf("%s: verdict %v (evalgate %v), want %s (%s)", tc.id, first["verdict"], details["evalgate_verdict"], tc.scoreVerdict, tc.evalgate)
		}
	}
	if _, ok := byID["windows-paths"]; ok {
		t.Error("skipped tests must not be written")
	}
	raw := byID["escalation"]["scores"].([]any)[0].(map[string]any)["details"].(map[string]any)["raw_scores"]
	if raw == nil {
		t.Error("range graders must carry details.raw_scores")
	}
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped   *struct{} `xml:"skipped"`
			SystemOut string    `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitParses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                             string
		run                              *result.Run
		opts                             JUnitOptions
		tests, failures, errors, skipped int
	}{
		{"mixed", loadRun(t, "mixed"), JUnitOptions{}, 9, 2, 3, 1},
		{"mixed, borderline fails", loadRun(t, "mixed"), JUnitOptions{Gate: gate.Decision{FailOn: gate.FailOnBorderline}}, 9, 3, 3, 1},
		{"all pass", loadRun(t, "all-pass"), JUnitOptions{}, 3, 0, 0, 0},
		{"hostile", loadRun(t, "hostile"), JUnitOptions{}, 2, 1, 1, 0},
		{"nil run", nil, JUnitOptions{}, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := writeJUnit(&buf, tc.run, tc.opts); err != nil {
				t.Fatal(err)
			}
			var doc junitDoc
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("junit.xml does not parse: %v\n%s", err, buf.String())
			}
			if doc.Tests != tc.tests || doc.Failures != tc.failures || doc.Errors != tc.errors || doc.Skipped != tc.skipped {
				t.Errorf("tests/failures/errors/skipped = %d/%d/%d/%d, want %d/%d/%d/%d",
					doc.Tests, doc.Failures, doc.Errors, doc.Skipped, tc.tests, tc.failures, tc.errors, tc.skipped)
			}
			n := 0
			for _, s := range doc.Suites {
				n += len(s.Cases)
				for _, c := range s.Cases {
					if c.Classname != s.Name || c.Name == "" || c.Time == "" {
						t.Errorf("testcase %+v lacks classname/name/time", c)
					}
					if strings.ContainsAny(c.SystemOut, "\x1b\a") {
						t.Errorf("system-out carries control characters: %q", c.SystemOut)
					}
				}
			}
			if n != doc.Tests {
				t.Errorf("%d testcases, tests=%d", n, doc.Tests)
			}
		})
	}
	var buf bytes.Buffer
	if err := writeJUnit(&buf, loadRun(t, "mixed"), JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Name == "fix-null-check" {
			if c.Failure == nil || !strings.Contains(c.Failure.Message, "tests-pass") {
				t.Errorf("fix-null-check failure must name tests-pass: %+v", c.Failure)
			}
			if !strings.Contains(c.SystemOut, "rubrics › minimal-diff: 1.00") {
				t.Errorf("system-out must list criterion scores: %q", c.SystemOut)
			}
		}
	}
}
