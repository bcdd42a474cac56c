package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
)

func newValidateCmd(e env, st *cliState) *cobra.Command {
	sel := &selection{}
	var strict bool
	cmd := &cobra.Command{
		Use:   "validate [PATH...] [flags]",
		Short: "Check eval files, targets and graders without calling any model",
		Long: `Load the eval files found under each PATH (default: the current directory) and check
what run would use: every file, the targets file of each suite, the target and judge of every
test, and every grader's own settings. Every problem is printed on stdout as
path:line:col: severity: message. Nothing is run and no model is called.

validate lints the files, not the environment: where a ${{ VAR }} is not set or no targets
file is found (a lint job, a fork's pull request, a laptop without keys), it checks everything
else and warns about what it could not check. --strict also requires what a run needs: then
a file that validates does not fail at run time for a configuration reason.

Exits 0 when there is no error (warnings allowed), 2 otherwise.`,
		Example: `  evalgate validate                       # every eval file under the current directory
  evalgate validate evals/greeter.eval.yaml
  evalgate validate evals/ --target gpt   # check the files against the target run would use
  evalgate validate --strict              # also require every variable and targets file run needs`,
		Args: cobra.ArbitraryArgs,
		RunE: runE(st, func(cmd *cobra.Command, args []string) error {
			if err := sel.check(); err != nil {
				return err
			}
			return validateCmd(cmd.Context(), e, sel, strict, args)
		}),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	sel.register(fs)
	fs.BoolVar(&strict, "strict", false, "also require what a run needs: every ${{ VAR }} set and a targets file for every suite")
	return cmd
}

// validateCmd loads eval files and checks their configuration; exit 2 on any error.
func validateCmd(ctx context.Context, e env, sel *selection, strict bool, paths []string) error {
	root, err := absRoot(ctx, sel.root, paths)
	if err != nil {
		return err
	}
	// validate checks AgentV's files as written: a variable run would refuse is a warning.
	// What it prints is scrubbed as run's output is.
	policy := &suite.EnvPolicy{Allow: sel.allowEnv, Warn: true}
	scrub := e.scrubber()
	scrub.Add(pipeline.JobSecrets(e.environ, e.getenv, sel.allowEnv)...)
	out := safetext.Lines(e.stdout, scrub.String)
	defer out.Flush()
	e.stdout = out
	// The same wiring as run, without a cache: building a client calls nobody.
	cfg := pipeline.Config{Config: resolve.Config{Root: root, Targets: sel.targets, Target: sel.target, Judge: sel.judge, Lint: !strict,
		Getenv: e.getenv, Env: policy, Log: e.stdout, OnSecrets: func(v []string) { scrub.Add(v...) }}}
	l, err := pipeline.New(cfg).Search(paths)
	if err != nil {
		return usageErr("%w", err)
	}
	if cfg.LLM, err = (&llmFlags{noCache: true}).options(ctx, root, e); err != nil {
		return err
	}
	diags, warnings, err := pipeline.New(cfg).Validate(l, &sel.filter)
	if err != nil {
		return err
	}
	for _, d := range diags {
		fmt.Fprintln(e.stdout, pipeline.DiagLine(d))
	}
	errs := l.Errors + len(diags)
	fmt.Fprintf(e.stdout, "%s, %s, %s\n", count(len(l.Files), "file"), count(errs, "error"), count(l.Warnings+warnings, "warning"))
	if errs > 0 {
		return &exitError{code: exitUsage}
	}
	return nil
}
