package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/sethvargo/go-githubactions"

	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/resolve"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/shard"
)

// Host is what the process running the action (`evalgate action`) gives it.
type Host struct {
	// Getenv reads the job's environment: the runner's variables and the INPUT_* inputs.
	Getenv func(string) string
	// Stdout takes workflow commands and, in a dry run, what would be posted; Log is the
	// job log.
	Stdout, Log io.Writer
	// Root is the checked-out repository ("" = GITHUB_WORKSPACE, else the current directory).
	Root string
	// DryRun prints the comment and check run instead of calling GitHub (no token needed).
	DryRun bool
	// Credentials are the job's credentials: masked in the job log before anything else is
	// printed, and scrubbed, with every secret found later, through Scrub (not nil).
	Credentials []string
	Scrub       *redact.Redactor
	// HTTP and GitHub make the GitHub client.
	HTTP   *http.Client
	GitHub github.Options
	// Warn hears what does not stop the run (a reply cache that cannot be used); nil writes
	// it to Log.
	Warn func(string)
	// User is who user commands run as (nil = evalgate's own user); Notice is said on the
	// log once the action is set up, before it runs (how isolated user commands are).
	User   *proc.User
	Notice string
}

// Main is the action: it reads the inputs and the event, connects to GitHub (or prints, in a
// dry run), builds the run's pipeline.Runner and runs the event with it. An *ExitError is the
// action's own end, already reported; any other error is a configuration error.
func Main(ctx context.Context, h Host) error {
	act := githubactions.New(githubactions.WithGetenv(h.Getenv), githubactions.WithWriter(safetext.CommandWriter{W: h.Stdout}))
	in, err := parseInputs(act.GetInput)
	if err != nil {
		return err
	}
	// Every credential is masked in the job log before anything else is printed, and
	// scrubbed from everything evalgate posts or writes; the set grows as targets files
	// interpolate more.
	scrub := h.Scrub
	addSecrets := func(values []string) {
		scrub.Add(values...)
		if !h.DryRun {
			for _, v := range values {
				act.AddMask(v)
			}
		}
	}
	addSecrets(append(slices.Clone(h.Credentials), pipeline.AllowedValues(h.Getenv, in.EnvAllow)...))
	ev, err := event.Load(h.Getenv, os.ReadFile)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(cmp.Or(h.Root, ev.Workspace, "."))
	if err != nil {
		return fmt.Errorf("repository directory: %w", err)
	}
	shardKey := h.Getenv(shard.KeyEnv)
	if err := shard.CheckKey(shardKey); err != nil {
		return err
	}
	d := deps{Event: ev, Actions: act, Log: h.Log, Root: root, Outputs: h.Getenv("GITHUB_OUTPUT") != "", DryRun: h.DryRun, ShardKey: shardKey,
		CheckedOut: func(ctx context.Context) (string, error) { return pipeline.HeadCommit(ctx, root) }, Scrub: scrub, Getenv: h.Getenv}
	if err := h.connect(&d, in); err != nil {
		return err
	}
	warn := h.Warn
	if warn == nil {
		warn = func(msg string) { fmt.Fprintf(h.Log, "evalgate: warning: %s\n", msg) }
	}
	models, err := pipeline.ModelOptions(ctx, pipeline.Models{CacheDir: in.CacheDir}, root, h.Getenv, warn)
	if err != nil {
		return err
	}
	d.Runner = pipeline.New(in.runConfig(pipeline.Config{Config: resolve.Config{Root: root, Getenv: h.Getenv, LLM: models, Log: h.Log,
		OnSecrets: addSecrets}, Scrub: scrub, User: h.User}))
	if h.Notice != "" {
		fmt.Fprintln(h.Log, h.Notice)
	}
	return run(ctx, in, d)
}

// connect gives the action its GitHub: the repository's API, or in a dry run a printer.
func (h *Host) connect(d *deps, in inputs) error {
	if h.DryRun {
		dry := &dryRun{Out: h.Stdout, Scrub: d.Scrub}
		d.Publisher, d.Source = dry, dry
		return nil
	}
	if in.Token == "" {
		return errors.New("input github_token is empty (the default is ${{ github.token }})")
	}
	opts := h.GitHub
	opts.Scrub = d.Scrub.String
	gh, err := github.New(h.HTTP, d.Event.APIURL, in.Token, opts)
	if err != nil {
		return err
	}
	repo := gh.Repo(d.Event.Owner, d.Event.Repo)
	d.Publisher, d.Source = repo, repo
	return nil
}
