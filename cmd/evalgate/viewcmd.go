package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/view"
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
	srv, err := view.Listen(dir, o.port)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	url := srv.URL(page)
	fmt.Fprintf(e.stdout, "serving %s at %s (Ctrl-C to stop)\n", dir, url)
	if o.ready != nil {
		o.ready(url)
	}
	if o.open {
		if err := view.OpenBrowser(url); err != nil {
			fmt.Fprintf(e.stderr, "evalgate: could not open a browser (%v); open %s\n", err, url)
		}
	}
	if err := srv.Serve(ctx); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	return nil
}
