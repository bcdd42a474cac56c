package main

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/action"
	"github.com/evalgate/evalgate/internal/pipeline"
)

// actionOptions are the flags of `evalgate action`; the inputs come from INPUT_* variables.
type actionOptions struct {
	dryRun                        bool
	eventPath, eventName, repoDir string
}

func newActionCmd(e env, st *cliState) *cobra.Command {
	o := &actionOptions{}
	cmd := &cobra.Command{
		Use:   "action [flags]",
		Short: "The GitHub Action entry point (the container's default command)",
		Long: `Run as the GitHub Action: read the event, pick the suites the pull request touches (or a
rerun command asks for), run them, and post the sticky comment and the check run. Inputs come
from the INPUT_* variables Actions sets (see action.yml).

With --dry-run no token is needed: the event is read from --event and --event-name (default a
plain workflow_dispatch), and the comment and check-run payload are printed instead of posted.`,
		Example: `  evalgate action --dry-run --repo testdata/quickstart
  evalgate action --dry-run --event event.json --event-name pull_request --repo .`,
		Args: noArgs,
		RunE: runE(st, func(cmd *cobra.Command, _ []string) error { return actionCmd(cmd.Context(), e, o) }),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the comment and check-run payload instead of calling GitHub")
	fs.StringVar(&o.eventPath, "event", "", "event payload file (default $GITHUB_EVENT_PATH)")
	fs.StringVar(&o.eventName, "event-name", "", "event name (default $GITHUB_EVENT_NAME, or workflow_dispatch with --dry-run)")
	fs.StringVar(&o.repoDir, "repo", "", "repository directory (default $GITHUB_WORKSPACE, or the current directory)")
	return cmd
}

// actionCmd is the GitHub Action entry point (the container's default command): it gives
// the action the process's connections to the world and runs it.
func actionCmd(ctx context.Context, e env, o *actionOptions) error {
	root := ""
	if o.repoDir != "" {
		var err error
		if root, err = filepath.Abs(o.repoDir); err != nil {
			return usageErr("repository directory: %w", err)
		}
	}
	err := action.Main(ctx, action.Host{Getenv: o.getenv(e), Stdout: e.stdout, Log: e.stderr, Root: root, DryRun: o.dryRun,
		Credentials: pipeline.Credentials(e.environ, e.getenv), Scrub: e.scrubber(), HTTP: &http.Client{Timeout: time.Minute}, GitHub: e.github,
		Warn: warner(e), User: e.iso.User, Notice: e.iso.Note})
	var exit *action.ExitError
	switch {
	case errors.As(err, &exit):
		// Run has reported why in the log, the summary and the check run.
		return &exitError{code: exit.Code}
	case err != nil:
		return usageErr("%w", err)
	}
	return nil
}

// getenv is the environment as the action sees it: the flags stand in for the runner's
// variables, and a dry run outside a runner gets a plain workflow_dispatch.
func (o *actionOptions) getenv(e env) func(string) string {
	return func(k string) string {
		switch {
		case k == "GITHUB_EVENT_PATH" && o.eventPath != "":
			return o.eventPath
		case k == "GITHUB_EVENT_NAME" && o.eventName != "":
			return o.eventName
		case k == "GITHUB_EVENT_NAME" && o.dryRun && e.getenv(k) == "":
			return "workflow_dispatch"
		case k == "GITHUB_REPOSITORY" && o.dryRun && e.getenv(k) == "":
			return "local/dry-run"
		}
		return e.getenv(k)
	}
}
