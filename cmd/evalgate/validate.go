package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
)

// validateCmd loads eval files and reports every problem; exit 2 on any error.
func validateCmd(e env, args []string) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	root := fs.String("root", "", "repository root (default: the git work tree of the first path)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{code: exitUsage}
	}
	paths := fs.Args()
	if *root == "" {
		first := "."
		if len(paths) > 0 {
			first = paths[0]
		}
		*root = repoRoot(context.Background(), first)
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		return usageErr("--root: %w", err)
	}
	l, err := loadSuites(paths, abs, e.getenv, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d files, %d errors, %d warnings\n", len(l.files), l.errors, l.warnings)
	if l.errors > 0 {
		return &exitError{code: exitUsage}
	}
	return nil
}
