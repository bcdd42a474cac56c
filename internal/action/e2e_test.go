package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/llm/price"
	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/shard"
)

// runner is one simulated Actions job (actiontest.Job) running the action end to end: Run
// with a real pipeline.Runner on the job's checkout, the GitHub fake behind the real client,
// and the LLM fake (internal/llm/llmtest) where a suite calls a vendor. It builds the action's
// connections as `evalgate action` does; what only the binary adds (masking, the log's
// escaping) is tested in cmd/evalgate.
type runner struct{ *actiontest.Job }

func newRunner(t *testing.T, srv *githubtest.Server, eventName string, payload map[string]any) *runner {
	t.Helper()
	return &runner{actiontest.New(t, srv, eventName, payload)}
}

// run runs the action once and returns its exit code and everything it printed.
func (r *runner) run() (int, string) {
	ctx, cancel := context.WithTimeout(r.T.Context(), time.Minute)
	defer cancel()
	code, out, log := r.runArgs(ctx)
	return code, out + log
}

// runArgs runs the action under ctx and returns its exit code, its stdout (workflow commands,
// or a dry run's payloads) and the job log apart. The only flag is --dry-run.
func (r *runner) runArgs(ctx context.Context, flags ...string) (int, string, string) {
	var stdout bytes.Buffer
	log := &syncBuffer{}
	err := r.action(ctx, &stdout, log, len(flags) == 1 && flags[0] == "--dry-run")
	code := 0
	var exit *ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.Code
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintln(log, "evalgate: interrupted")
		code = ErrCancelled.Code
	default:
		fmt.Fprintf(log, "evalgate: %v\n", err)
		code = ErrConfig.Code
	}
	return code, stdout.String(), log.String()
}

// action builds the action's connections to the job and runs it.
func (r *runner) action(ctx context.Context, stdout *bytes.Buffer, log io.Writer, dry bool) error {
	act := githubactions.New(githubactions.WithGetenv(r.Getenv), githubactions.WithWriter(stdout))
	in, err := ParseInputs(act.GetInput)
	if err != nil {
		return err
	}
	var environ []string
	for k, v := range r.Env {
		environ = append(environ, k+"="+v)
	}
	scrub := redact.New()
	scrub.Add(redact.Credentials(environ)...)
	for _, k := range in.EnvAllow {
		scrub.Add(r.Env[k])
	}
	ev, err := event.Load(r.Getenv, os.ReadFile)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(ev.Workspace)
	if err != nil {
		return err
	}
	llm := provider.Options{Limiters: provider.NewLimiters(), Prices: price.Builtin(), HTTPClient: provider.NewHTTPClient(),
		Warn: func(msg string) { fmt.Fprintf(log, "evalgate: warning: %s\n", msg) }}
	d := Deps{Event: ev, Actions: act, Log: log, Root: root, Outputs: true, DryRun: dry, ShardKey: r.Env[shard.KeyEnv],
		CheckedOut: func(ctx context.Context) (string, error) { return pipeline.HeadCommit(ctx, root) }, Scrub: scrub, Getenv: r.Getenv,
		Runner: pipeline.New(in.RunConfig(pipeline.Config{Root: root, Getenv: r.Getenv, LLM: llm, Log: log,
			OnSecrets: func(v []string) { scrub.Add(v...) }, Scrub: scrub}))}
	if dry {
		p := &DryRun{Out: stdout, Scrub: scrub}
		d.Publisher, d.Source = p, p
	} else {
		gh, err := github.New(r.Srv.Client(), ev.APIURL, in.Token, github.Options{WriteSpacing: time.Millisecond, Scrub: scrub.String})
		if err != nil {
			return err
		}
		repo := gh.Repo(ev.Owner, ev.Repo)
		d.Publisher, d.Source = repo, repo
	}
	return Run(ctx, in, d)
}

// syncBuffer is the job log: the engine's workers write their progress to it at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
