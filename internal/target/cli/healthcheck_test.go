package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
)

// runAll runs n tests at once against tg and returns their errors.
func runAll(t *testing.T, tg *Target, n int) []error {
	t.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = tg.Run(t.Context(), req("p", "")) })
	}
	wg.Wait()
	return errs
}

func TestHealthcheck(t *testing.T) {
	t.Parallel()
	var hits, failHits atomic.Int32
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(ok.Close) // subtests run after this function returns
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		failHits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)

	tests := []struct {
		name   string
		check  func(counter string) any
		want   string // "" = the tests run
		checks func() int32
	}{
		{"command true", func(c string) any { return "echo x >> " + quote(c) + " && true" }, "", nil},
		{"command false", func(c string) any { return "echo x >> " + quote(c) + "; echo not ready >&2; false" },
			"healthcheck failed: exited with code 1: not ready", nil},
		{"command object", func(c string) any { return map[string]any{"command": "echo x >> " + quote(c)} }, "", nil},
		{"command timeout", func(c string) any {
			return map[string]any{"command": "echo x >> " + quote(c) + "; sleep 5", "timeout_seconds": 0.2}
		}, "healthcheck failed: timed out after 200ms", nil},
		{"url 200", func(string) any { return map[string]any{"url": ok.URL + "/health"} }, "", hits.Load},
		{"url 503", func(string) any { return map[string]any{"url": down.URL} }, "healthcheck failed: GET " + down.URL + ": 503 Service Unavailable", failHits.Load},
		{"url timeout", func(string) any { return map[string]any{"url": slow.URL, "timeout_seconds": 0.2} }, "healthcheck failed: GET " + slow.URL + " timed out after 200ms", nil},
		{"url refused", func(string) any { return map[string]any{"url": "http://127.0.0.1:1/"} }, "healthcheck failed: Get", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			counter, marker := filepath.Join(dir, "checks"), filepath.Join(dir, "ran")
			tg, err := New(&suite.TargetConfig{Name: "hc", Dir: dir, Settings: map[string]any{
				"command": "touch " + quote(marker) + " && echo ok", "timeout_seconds": 5, "healthcheck": tt.check(counter),
			}})
			if err != nil {
				t.Fatal(err)
			}
			for i, err := range runAll(t, tg, 4) {
				if tt.want == "" && err != nil {
					t.Fatalf("test %d: %v", i, err)
				}
				if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
					t.Fatalf("test %d: err = %v, want %q", i, err, tt.want)
				}
			}
			// The check ran once for all four tests, and a failed check kept the agent from running.
			if b, err := os.ReadFile(counter); err == nil && strings.Count(string(b), "x") != 1 {
				t.Errorf("command healthcheck ran %d times", strings.Count(string(b), "x"))
			}
			if tt.checks != nil && tt.checks() != 1 {
				t.Errorf("URL healthcheck requested %d times", tt.checks())
			}
			if _, err := os.Stat(marker); (err == nil) != (tt.want == "") {
				t.Errorf("agent ran = %v with healthcheck error %q", err == nil, tt.want)
			}
		})
	}
}

func TestHealthcheckCutShortIsRetried(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			<-r.Context().Done() // the first test's context ends while it waits
		}
	}))
	defer srv.Close()
	tg, err := New(&suite.TargetConfig{Name: "hc", Dir: t.TempDir(), Settings: map[string]any{
		"command": "echo ok", "healthcheck": map[string]any{"url": srv.URL},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := tg.Run(ctx, req("p", "")); err == nil || !strings.Contains(err.Error(), "healthcheck failed") {
		t.Fatalf("first test: err = %v", err)
	}
	if _, err := tg.Run(t.Context(), req("p", "")); err != nil {
		t.Fatalf("second test: %v", err)
	}
	if n := hits.Load(); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}
