package view

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestHandlerAnswersOnlyLocalReads(t *testing.T) {
	t.Parallel()
	h := handler(http.FS(fstest.MapFS{"report.html": {Data: []byte("<!DOCTYPE html>")}}), 8080)
	tests := []struct {
		name, method, host string
		want               int
	}{
		{"GET by address", http.MethodGet, "127.0.0.1:8080", http.StatusOK},
		{"GET by name", http.MethodGet, "localhost:8080", http.StatusOK},
		{"HEAD", http.MethodHead, "127.0.0.1:8080", http.StatusOK},
		// A page elsewhere resolving its own name to 127.0.0.1 (DNS rebinding).
		{"foreign host", http.MethodGet, "attacker.example:8080", http.StatusMisdirectedRequest},
		{"another port", http.MethodGet, "127.0.0.1:9090", http.StatusMisdirectedRequest},
		{"POST", http.MethodPost, "127.0.0.1:8080", http.StatusMethodNotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tc.method, "/report.html", nil)
			req.Host = tc.host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("%s %s: %d, want %d", tc.method, tc.host, rec.Code, tc.want)
			}
			if tc.want == http.StatusOK && rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers %v lack nosniff", rec.Header())
			}
		})
	}
}

func TestServeRefusesLinksOutOfTheDirectory(t *testing.T) {
	t.Parallel()
	dir, secret := t.TempDir(), filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.html"), []byte("<!DOCTYPE html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "x")); err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	get := func(page string) (int, string) {
		resp, err := http.Get(srv.URL(page))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("report.html"); code != http.StatusOK || body != "<!DOCTYPE html>" {
		t.Errorf("report.html: %d %q", code, body)
	}
	if code, body := get("x"); code == http.StatusOK || body == "PRIVATE KEY" {
		t.Errorf("a link out of the directory: %d %q", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after its context ended: %v", err)
	}
}
