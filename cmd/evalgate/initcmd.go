package main

import (
	"embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/scaffold"
)

// initdata holds what `evalgate init` writes. initdata/evals.yml is the README's workflow
// (a test keeps them equal).
//
//go:embed initdata
var initdata embed.FS

// initFiles maps each file init writes (relative to DIR) to its template in initdata.
var initFiles = []scaffold.File{
	{Path: filepath.Join("evals", "hello.eval.yaml"), Template: "initdata/hello.eval.yaml"},
	{Path: "targets.yaml", Template: "initdata/targets.yaml"},
	{Path: filepath.Join(".github", "workflows", "evals.yml"), Template: "initdata/evals.yml"},
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
		exist, err := scaffold.Existing(dir, initFiles)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		if len(exist) > 0 {
			verb := "exist"
			if len(exist) == 1 {
				verb = "exists"
			}
			return usageErr("init: %s already %s (--force overwrites)", strings.Join(exist, ", "), verb)
		}
	}
	if err := scaffold.Write(dir, initdata, initFiles, force, func(path string) { fmt.Fprintf(e.stdout, "wrote %s\n", path) }); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	run := "evalgate run"
	if dir != "." {
		run = "cd " + dir + " && evalgate run"
	}
	fmt.Fprintf(e.stdout, "next: %s (offline, mock agent and judge); then replace the mock targets in targets.yaml with yours\n", run)
	return nil
}
