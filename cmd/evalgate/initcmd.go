package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// initdata holds what `evalgate init` writes. initdata/evals.yml is the README's workflow
// (a test keeps them equal).
//
//go:embed initdata
var initdata embed.FS

// scaffold maps each file init writes (relative to DIR) to its template in initdata.
var scaffold = []struct{ path, template string }{
	{filepath.Join("evals", "hello.eval.yaml"), "initdata/hello.eval.yaml"},
	{"targets.yaml", "initdata/targets.yaml"},
	{filepath.Join(".github", "workflows", "evals.yml"), "initdata/evals.yml"},
}

func newInitCmd(e env, st *cliState) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a first eval suite, targets and the GitHub workflow",
		Long: `Write a small working suite into DIR (default: the current directory):

  evals/hello.eval.yaml         one test with a deterministic check and a rubric
  targets.yaml                  a mock agent and a mock judge (offline), and a commented OpenAI judge
  .github/workflows/evals.yml   the workflow that runs evalgate on pull requests

"evalgate run" right after passes, offline. An existing file is never overwritten unless
--force is given; without it nothing is written when any of the files exists.`,
		Example: `  evalgate init && evalgate run
  evalgate init my-repo --force`,
		Args: cobra.MaximumNArgs(1),
		RunE: runE(st, func(_ *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return initSuite(e, dir, force)
		}),
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite files that exist")
	return cmd
}

// initSuite writes the scaffold into dir. Existing files are checked for first, so a refusal
// leaves dir as it was.
func initSuite(e env, dir string, force bool) error {
	if !force {
		var exist []string
		for _, f := range scaffold {
			if _, err := os.Lstat(filepath.Join(dir, f.path)); err == nil {
				exist = append(exist, filepath.Join(dir, f.path))
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("init: %w", err)
			}
		}
		if len(exist) > 0 {
			return usageErr("init: %s already exist%s (--force overwrites)", strings.Join(exist, ", "), plural(len(exist) == 1, "s", ""))
		}
	}
	for _, f := range scaffold {
		data, err := initdata.ReadFile(f.template)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		path := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		if force {
			flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		}
		if err := writeNew(path, flags, data); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", path)
	}
	run := "evalgate run"
	if dir != "." {
		run = "cd " + dir + " && evalgate run"
	}
	fmt.Fprintf(e.stdout, "next: %s (offline, mock agent and judge); then replace the mock targets in targets.yaml with yours\n", run)
	return nil
}

// writeNew writes data to path opened with flags (O_EXCL unless overwriting: a file created
// since the check is not clobbered).
func writeNew(path string, flags int, data []byte) error {
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// plural is one when single is true, else many.
func plural(single bool, one, many string) string {
	if single {
		return one
	}
	return many
}
