package reports

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/compare"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/result"
)

// renderHTML renders the page and returns it with every test's details (which the page
// holds as JSON for its script to insert) appended, as a reader who opened them all sees it.
func renderHTML(t *testing.T, run *result.Run, c *compare.Comparison) string {
	t.Helper()
	var b strings.Builder
	if err := NewReport(run, c).writeHTML(&b, gate.Decision{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="bodies">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no bodies data block")
	}
	var bodies []string
	if err := json.Unmarshal([]byte(m[1]), &bodies); err != nil {
		t.Fatalf("bodies: %v", err)
	}
	if n := strings.Count(page, `<details class="t"`); len(bodies) != n {
		t.Fatalf("%d bodies for %d tests", len(bodies), n)
	}
	return page + strings.Join(bodies, "\n")
}

// hostileRun is a run whose every text a model or repository controls tries to break out of
// the page.
func hostileRun() *result.Run {
	const x = `</pre></details><script>alert(1)</script><img src=x onerror=alert(2)>"'&`
	ok := false
	return &result.Run{Thresholds: result.DefaultThresholds, Suites: []*result.SuiteResult{{Name: "s" + x, Path: "evals/s.yaml", Tests: []*result.TestResult{{
		Suite: "s" + x, ID: "t" + x, Verdict: result.Fail, Score: 0.5, Input: "in" + x, Gates: []string{"g" + x},
		Graders: []*result.GraderResult{{Name: "rubrics", Type: "rubrics", Verdict: result.Fail, Criteria: []*result.CriterionResult{
			{ID: "c" + x, Verdict: result.Fail, Satisfied: &ok, Gated: true, Required: true, Reasoning: "why" + x}}}},
		Output: &result.Output{Answer: "a" + x, ToolCalls: []result.ToolCall{{Tool: "Edit" + x, Input: map[string]any{"path": x}, Output: x}},
			FileChanges: "diff --git a/f" + x + " b/f" + x + "\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old" + x + "\n+new" + x + "\n"},
	}}}}}
}

func TestHTMLEscapesEverythingAndAllowsOnlyItsOwnCode(t *testing.T) {
	t.Parallel()
	page := renderHTML(t, hostileRun(), nil)
	for _, bad := range []string{"<script>alert", "<img", "onerror=alert(2)>", "</pre></details><script>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds unescaped %q", bad)
		}
	}
	if n, data := strings.Count(page, "<script"), strings.Count(page, `<script type="application/json" id="bodies">`); n != 2 || data != 1 {
		t.Errorf("%d script elements (%d the data block), want the page's own one and its data", n, data)
	}
	if m := regexp.MustCompile(`<[a-z]+(?:\s+[a-z-]+(?:="[^"]*")?)*\s+(?:src|href|action|srcset)=`).FindString(page); m != "" {
		t.Errorf("an element refers to something outside the page: %s", m)
	}
	for _, ref := range []string{"url(", "@import", "http://", "https://"} {
		if strings.Contains(page, ref) {
			t.Errorf("page refers to something outside itself: %q", ref)
		}
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if csp == nil || !strings.HasPrefix(csp[1], "default-src 'none';") {
		t.Fatalf("no strict Content-Security-Policy: %v", csp)
	}
	for _, el := range []string{"style", "script"} {
		m := regexp.MustCompile(`(?s)<` + el + `>(.*?)</` + el + `>`).FindStringSubmatch(page)
		if el == "script" && !strings.Contains(m[1], "bodies") {
			t.Fatal("the script is not the page's own")
		}
		if m == nil {
			t.Fatalf("no inline %s", el)
		}
		sum := sha256.Sum256([]byte(m[1]))
		if want := el + "-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp[1], want) {
			t.Errorf("the policy does not allow the page's %s (%s): %s", el, want, csp[1])
		}
	}
	for _, want := range []string{"why&lt;/pre&gt;", `<span class="a">+new&lt;/pre&gt;`, `<span class="d">-old`, "Edit&lt;/pre&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestHTMLHoldsEveryTestAndCriterion(t *testing.T) {
	t.Parallel()
	run := bigRun(300)
	page := renderHTML(t, run, nil)
	for _, s := range run.Suites {
		for _, tr := range s.Tests {
			if !strings.Contains(page, `<span class="id">`+tr.ID+"</span>") {
				t.Fatalf("test %s missing", tr.ID)
			}
		}
	}
	if got := strings.Count(page, `<details class="t"`); got != 300 {
		t.Errorf("%d tests on the page, want 300", got)
	}
	for _, crit := range []string{"correctness", "completeness", "safety", "style"} {
		if !strings.Contains(page, `data-crit="rubrics › `+crit+`"`) {
			t.Errorf("criterion %s missing from the criteria table", crit)
		}
	}
	for _, id := range []string{"chart-profile", "chart-scores"} {
		if !strings.Contains(page, `id="`+id+`"`) {
			t.Errorf("chart %s missing", id)
		}
	}
	if strings.Contains(page, `id="chart-delta"`) {
		t.Error("a Δ chart without a baseline")
	}
}

func TestHTMLWithBaselineDrawsTheDelta(t *testing.T) {
	t.Parallel()
	head := bigRun(60)
	base := bigRun(60)
	for _, tr := range base.Suites[0].Tests {
		tr.Verdict, tr.Score, tr.Gates = result.Pass, 1, nil
		for _, g := range tr.Graders {
			g.Verdict = result.Pass
			for _, c := range g.Criteria {
				ok := true
				c.Verdict, c.Score, c.Satisfied, c.Gated = result.Pass, 1, &ok, false
			}
		}
	}
	c := compare.Compare(base, head, compare.Options{})
	page := renderHTML(t, head, c)
	for _, want := range []string{`id="chart-delta"`, "outline: base", "Against the baseline", "base pass rate", `data-rg="1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestSplitDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, diff string
		want       []string // name:+add-del per file
	}{
		{"git", "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1,2 @@\n-a\n+b\n+c\ndiff --git a/y b/y\n+++ b/y\n+z\n", []string{"x.py:+2-1", "y:+1-0"}},
		{"plain unified", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", []string{"x:+1-1"}},
		{"no headers", "+added\n context\n", []string{":+1-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, f := range splitDiff(tc.diff) {
				got = append(got, f.name+":+"+strconv.Itoa(f.add)+"-"+strconv.Itoa(f.del))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCommentLinksTheReportPage(t *testing.T) {
	t.Parallel()
	run := bigRun(3)
	run.Context.ReportURL = "https://example.test/artifacts/1/report.html"
	got := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker, RerunCommand: "/evalgate rerun"})
	if !strings.Contains(got, "[📊 report.html](https://example.test/artifacts/1/report.html)") {
		t.Errorf("the comment does not link report.html:\n%s", got[max(0, len(got)-400):])
	}
	run.Context.ReportURL = "javascript:alert(1)"
	if got := NewReport(run, nil).Comment(CommentOptions{Marker: testMarker, RerunCommand: "/evalgate rerun"}); strings.Contains(got, "javascript:") {
		t.Error("an unsafe report URL is linked")
	}
}
