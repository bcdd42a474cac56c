// Command evalgate grades LLM agents: it runs AgentV-style eval suites, scores them by the
// rubric rules and gates pull requests on the result. See the README for the subcommands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/evalgate/evalgate/internal/proc"
)

func main() {
	proc.Harden()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runEnv(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ})
	stop()
	os.Exit(code)
}
