// Command evalgate grades LLM agents: it runs AgentV-style eval suites, scores them by the
// rubric rules and gates pull requests on the result. See the README for the subcommands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/evalgate/evalgate/internal/proc"
)

func main() {
	proc.Harden()
	// Who user commands run as is decided here, once, from who evalgate is.
	iso, err := proc.DecideIsolation(os.Geteuid(), os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "evalgate: isolation: %v\n", err)
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runEnv(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ, iso: iso})
	stop()
	_ = iso.User.Close()
	os.Exit(code)
}
