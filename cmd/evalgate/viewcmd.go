package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/reports"
)

// viewOptions are the flags of `evalgate view`.
type viewOptions struct {
	path string
	port int
	open bool
	// ready, when set (tests), receives the URL once the server listens.
	ready func(url string)
}

func newViewCmd(e env, st *cliState) *cobra.Command {
	o := &viewOptions{}
	cmd := &cobra.Command{
		Use:   "view DIR|report.html",
		Short: "Serve a report directory on 127.0.0.1 to read report.html in a browser",
		Long: `Serve a report directory (an --out directory, or an unzipped Actions artifact) on
127.0.0.1 and print the URL of its report.html; stop with Ctrl-C. The port is random unless
--port is given; --open also opens the URL in the system's browser. Only this machine can
connect, and only under the names 127.0.0.1 and localhost (so a web page cannot reach the
server through DNS rebinding).

report.html needs no server: it loads nothing, so opening the file itself works too.
To read an older run with today's renderer, run "evalgate report RESULTS.json" first.`,
		Example: `  evalgate view report/
  evalgate view artifact/report.html --port 8080 --open`,
		Args: cobra.ExactArgs(1),
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			if o.port < 0 || o.port > 65535 {
				return usageErr("--port must be between 0 and 65535, not %d", o.port)
			}
			return viewCmd(cmd.Context(), e, o)
		}),
	}
	fs := cmd.Flags()
	fs.IntVar(&o.port, "port", 0, "port to listen on (0: a free one)")
	fs.BoolVar(&o.open, "open", false, "open the report in the system's browser")
	return cmd
}

func viewCmd(ctx context.Context, e env, o *viewOptions) error {
	dir, page := o.path, reports.FileHTML
	fi, err := os.Stat(dir)
	if err != nil {
		return usageErr("view: %w", err)
	}
	if !fi.IsDir() {
		dir, page = filepath.Dir(o.path), filepath.Base(o.path)
	} else if _, err := os.Stat(filepath.Join(dir, page)); err != nil {
		return usageErr("view: %s has no %s (write one with evalgate run --out %s, or evalgate report RESULTS.json --out %s)", dir, page, dir, dir)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)))
	if err != nil {
		return fmt.Errorf("view: listen: %w", err)
	}
	// Through os.Root: an artifact's symbolic link out of the directory (to ~/.ssh, say) must
	// not be served to a page whose script can fetch it; http.Dir follows such links.
	root, err := os.OpenRoot(dir)
	if err != nil {
		ln.Close()
		return usageErr("view: %w", err)
	}
	defer root.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	url := fmt.Sprintf("http://127.0.0.1:%d/%s", port, neturl.PathEscape(page))
	srv := &http.Server{Handler: viewHandler(http.FS(root.FS()), port), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(e.stdout, "serving %s at %s (Ctrl-C to stop)\n", dir, url)
	if o.ready != nil {
		o.ready(url)
	}
	if o.open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(e.stderr, "evalgate: could not open a browser (%v); open %s\n", err, url)
		}
	}
	select {
	case err := <-done:
		return fmt.Errorf("view: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("view: stop: %w", err)
	}
	return nil
}

// viewHandler serves fsys to this machine's own names only, with report.html's own
// protections repeated as headers.
func viewHandler(fsys http.FileSystem, port int) http.Handler {
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

// openBrowser asks the desktop to open url.
func openBrowser(url string) error {
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
