package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/action/actiontest"
	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/github/githubtest"
	"github.com/evalgate/evalgate/internal/redact"
)

// runner is one simulated Actions job (actiontest.Job) running the action end to end: Main,
// as `evalgate action` runs it, with the real pipeline.Runner on the job's checkout, the
// GitHub fake behind the real client, and the LLM fake (internal/llm/llmtest) where a suite
// calls a vendor. What only the binary adds (the log's scrubbing and escaping, exit codes) is
// tested in cmd/evalgate.
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

// runArgs runs the action under ctx and returns its exit code, its stdout (workflow commands)
// and the job log apart.
func (r *runner) runArgs(ctx context.Context) (int, string, string) {
	var stdout bytes.Buffer
	log := &syncBuffer{}
	err := r.action(ctx, &stdout, log)
	code := 0
	var exit *ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.Code
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintln(log, "evalgate: interrupted")
		code = errCancelled.Code
	default:
		fmt.Fprintf(log, "evalgate: %v\n", err)
		code = errConfig.Code
	}
	return code, stdout.String(), log.String()
}

// action runs Main on the job, as `evalgate action` does, with the GitHub fake's client.
func (r *runner) action(ctx context.Context, stdout io.Writer, log io.Writer) error {
	var environ []string
	for k, v := range r.Env {
		environ = append(environ, k+"="+v)
	}
	return Main(ctx, Host{Getenv: r.Getenv, Stdout: stdout, Log: log, Credentials: redact.Credentials(environ), Scrub: redact.New(),
		HTTP: r.Srv.Client(), GitHub: github.Options{WriteSpacing: time.Millisecond}})
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
