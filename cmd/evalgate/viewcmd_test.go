package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/reports"
)

// quickstartReports runs the quickstart with --out and returns the report directory.
func quickstartReports(t *testing.T) string {
	t.Helper()
	qs := filepath.Join("..", "..", "testdata", "quickstart")
	out := t.TempDir()
	if code, _, stderr := invoke(t, "run", "--root", qs, "--out", out, qs); code != 1 {
		t.Fatalf("exit %d, want 1 (the quickstart fails its gate on purpose)\n%s", code, stderr)
	}
	return out
}

func TestReportRerendersFromResults(t *testing.T) {
	t.Parallel()
	src := quickstartReports(t)
	out := filepath.Join(t.TempDir(), "again")
	code, stdout, stderr := invoke(t, "report", filepath.Join(src, reports.FileResults), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if want := filepath.Join(out, reports.FileHTML); strings.TrimSpace(stdout) != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	for _, f := range []string{reports.FileHTML, reports.FileComment, reports.FileSummary, reports.FileCheckRun, reports.FileResults, reports.FileIndex, reports.FileJUnit} {
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		// The run's own files and the re-rendered ones agree: same renderer, same run.
		want, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if f != reports.FileCheckRun && f != reports.FileComment && f != reports.FileSummary && !bytes.Equal(got, want) {
			t.Errorf("%s differs from the run's own", f)
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, reports.FileHTML))
	for _, want := range []string{"add-divide", "zero-division", "FAILURE"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"missing file", []string{"report", filepath.Join(t.TempDir(), "nope.json")}, "read results"},
		{"no argument", []string{"report"}, "accepts 1 arg"},
		{"regression without baseline", []string{"report", filepath.Join(src, reports.FileResults), "--fail-on-regression"}, "--fail-on-regression needs --baseline"},
	} {
		if code, _, stderr := invoke(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %q", tc.name, code, stderr, tc.msg)
		}
	}
}

func TestViewServesTheReportToLocalhostOnly(t *testing.T) {
	t.Parallel()
	dir := quickstartReports(t)
	// An artifact's link out of the directory is not followed.
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		done <- viewCmd(ctx, env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }},
			&viewOptions{path: dir, ready: func(u string) { urls <- u }})
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("view ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("view did not start")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/"+reports.FileHTML) {
		t.Fatalf("url %q", url)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(body, []byte("<!DOCTYPE html>")) || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET %s: %d %q…", url, resp.StatusCode, body[:min(len(body), 40)])
	}
	link := strings.TrimSuffix(url, reports.FileHTML) + "x"
	if resp, err := http.Get(link); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || bytes.Contains(b, []byte("PRIVATE KEY")) {
			t.Errorf("GET %s through a link out of the directory: %d %q", link, resp.StatusCode, b)
		}
	}
	// A page elsewhere resolving its own name to 127.0.0.1 (DNS rebinding) is refused.
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = "attacker.example:80"
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %d, want 421", resp.StatusCode)
	}
	req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader("x"))
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("view after Ctrl-C: %v", err)
	}
	if !strings.Contains(out.String(), url) {
		t.Errorf("the URL is not printed: %q", out.String())
	}
	// A directory without report.html is a usage error that says how to make one.
	if code, _, stderr := invoke(t, "view", t.TempDir()); code != 2 || !strings.Contains(stderr, "evalgate report") {
		t.Errorf("empty dir: exit %d, %q", code, stderr)
	}
}
