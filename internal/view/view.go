// Package view serves a report directory to a browser on this machine: only on 127.0.0.1,
// only under this machine's own names, read only, and only files inside the directory.
package view

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"
)

// Server serves one report directory on 127.0.0.1.
type Server struct {
	ln   net.Listener
	root *os.Root
	port int
}

// Listen opens dir and listens on 127.0.0.1:port (0: a free port).
func Listen(dir string, port int) (*Server, error) {
	// Through os.Root: an artifact's symbolic link out of the directory (to ~/.ssh, say) must
	// not be served to a page whose script can fetch it; http.Dir follows such links.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	return &Server{ln: ln, root: root, port: ln.Addr().(*net.TCPAddr).Port}, nil
}

// URL is the address of page, a file of the directory.
func (s *Server) URL(page string) string {
	return fmt.Sprintf("http://127.0.0.1:%d/%s", s.port, neturl.PathEscape(page))
}

// Serve serves the directory until ctx ends, then stops the server and closes the directory.
func (s *Server) Serve(ctx context.Context) error {
	defer s.root.Close()
	srv := &http.Server{Handler: handler(http.FS(s.root.FS()), s.port), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(s.ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// ctx has ended: the shutdown gets a moment of its own to finish the requests under way.
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stop: %w", err)
	}
	return nil
}

// handler serves fsys to this machine's own names only (so a web page cannot reach it through
// DNS rebinding), with report.html's own protections repeated as headers.
func handler(fsys http.FileSystem, port int) http.Handler {
	files := http.FileServer(fsys)
	hosts := map[string]bool{}
	for _, h := range []string{"127.0.0.1", "localhost"} {
		hosts[net.JoinHostPort(h, strconv.Itoa(port))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[r.Host] {
			http.Error(w, "evalgate view answers only to 127.0.0.1 and localhost", http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		files.ServeHTTP(w, r)
	})
}

// OpenBrowser asks the desktop to open url.
func OpenBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
