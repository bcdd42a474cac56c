package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalgate/evalgate/internal/github"
)

// Exit codes, the contract with CI scripts.
const (
	exitOK          = 0
	exitGateFailed  = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitError carries an exit code; run maps every error to a code in one place.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is a usage or configuration error (exit 2).
func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// gateFailed is the expected outcome of a failing gate: already reported, exit 1.
var gateFailed = &exitError{code: exitGateFailed}

// env is what a subcommand may touch of the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// environ lists the environment, so every credential in it can be masked; nil (tests)
	// falls back to the well-known credential variables, read through getenv.
	environ func() []string
	// github tunes the GitHub client (tests shorten the write spacing).
	github github.Options
	// iso is who user commands run as (the zero value, in tests run in-process: evalgate's
	// own user, unannounced).
	iso isolation
}

// run is the whole program as a function of its inputs; it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return runEnv(ctx, args, env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv})
}

func runEnv(ctx context.Context, args []string, e env) int {
	root, st := newRootCmd(e)
	if len(args) == 0 {
		// A bare "evalgate" is a mistake in a script, not a request for help: usage on
		// stderr, exit 2. cobra adds its help and completion commands only when executing.
		root.InitDefaultHelpCmd()
		root.InitDefaultCompletionCmd()
		root.InitDefaultHelpFlag()
		root.InitDefaultVersionFlag()
		fmt.Fprint(e.stderr, root.UsageString())
		return exitUsage
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && !st.ran {
		// cobra failed before any command ran: an unknown command, flag or argument.
		if cmd == root && strings.HasPrefix(err.Error(), "unknown command") {
			err = unknownCommand(root, args)
		}
		fmt.Fprintf(e.stderr, "evalgate: %v\n", err)
		if cmd != root {
			fmt.Fprintf(e.stderr, "Usage: %s\n", cmd.UseLine())
		}
		fmt.Fprintf(e.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	}
	return exitCode(ctx, err, e.stderr)
}

// exitCode maps an error to the process exit code, printing it unless it was already reported.
func exitCode(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		fmt.Fprintln(stderr, "evalgate: interrupted")
		return exitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "evalgate: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "evalgate: %v\n", err)
	return exitUsage
}
