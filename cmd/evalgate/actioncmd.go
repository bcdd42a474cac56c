package main

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/sethvargo/go-githubactions"
	"github.com/spf13/cobra"

	"github.com/evalgate/evalgate/internal/action"
	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/shard"
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

// actionCmd is the GitHub Action entry point (the container's default command): it builds
// the action's connections to the world and runs it.
func actionCmd(ctx context.Context, e env, o *actionOptions) error {
	getenv := o.getenv(e)
	act := githubactions.New(githubactions.WithGetenv(githubactions.GetenvFunc(getenv)), githubactions.WithWriter(safetext.CommandWriter{W: e.stdout}))
	in, err := action.ParseInputs(act.GetInput)
	if err != nil {
		return usageErr("%w", err)
	}
	// Every credential is masked in the job log before anything else is printed, and
	// scrubbed from everything evalgate posts or writes; the set grows as targets files
	// interpolate more.
	scrub := e.scrubber()
	addSecrets := func(values []string) {
		scrub.Add(values...)
		if !o.dryRun {
			for _, v := range values {
				act.AddMask(v)
			}
		}
	}
	addSecrets(jobSecrets(e, in.EnvAllow))
	ev, err := event.Load(getenv, os.ReadFile)
	if err != nil {
		return usageErr("%w", err)
	}
	root, err := o.root(ev)
	if err != nil {
		return err
	}
	shardKey := getenv(shard.KeyEnv)
	if err := shard.CheckKey(shardKey); err != nil {
		return usageErr("%w", err)
	}
	d := action.Deps{Event: ev, Actions: act, Log: e.stderr, Root: root, Outputs: getenv("GITHUB_OUTPUT") != "", DryRun: o.dryRun, ShardKey: shardKey,
		CheckedOut: func(ctx context.Context) (string, error) { return pipeline.HeadCommit(ctx, root) }, Scrub: scrub, Getenv: e.getenv}
	if err := o.connect(e, &d, in, scrub); err != nil {
		return err
	}
	lf := llmFlags{cacheDir: in.CacheDir, budgetUSD: in.BudgetUSD, judgeSamples: in.JudgeSamples}
	llmOpts, err := lf.options(ctx, root, e)
	if err != nil {
		return err
	}
	d.Runner = pipeline.New(in.RunConfig(pipeline.Config{Root: root, Getenv: e.getenv, LLM: llmOpts, Log: e.stderr,
		OnSecrets: addSecrets, Scrub: scrub, User: e.iso.user}))
	e.iso.announce(e.stderr)
	var exit *action.ExitError
	if err := action.Run(ctx, in, d); errors.As(err, &exit) {
		// Run has reported why in the log, the summary and the check run.
		return &exitError{code: exit.Code}
	} else if err != nil {
		return err
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

// root is the checked-out repository: --repo, else GITHUB_WORKSPACE, else the current directory.
func (o *actionOptions) root(ev *event.Event) (string, error) {
	root := cmp.Or(o.repoDir, ev.Workspace, ".")
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", usageErr("repository directory: %w", err)
	}
	return abs, nil
}

// connect gives the action its GitHub: the repository's API, or in a dry run a printer.
func (o *actionOptions) connect(e env, d *action.Deps, in action.Inputs, scrub *redact.Redactor) error {
	if o.dryRun {
		dry := &action.DryRun{Out: e.stdout, Scrub: scrub}
		d.Publisher, d.Source = dry, dry
		return nil
	}
	if in.Token == "" {
		return usageErr("input github_token is empty (the default is ${{ github.token }})")
	}
	ghOpts := e.github
	ghOpts.Scrub = scrub.String
	gh, err := github.New(&http.Client{Timeout: time.Minute}, d.Event.APIURL, in.Token, ghOpts)
	if err != nil {
		return usageErr("%w", err)
	}
	repo := gh.Repo(d.Event.Owner, d.Event.Repo)
	d.Publisher, d.Source = repo, repo
	return nil
}
