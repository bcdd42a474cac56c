package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evalgate/evalgate/internal/github"
	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/safetext"
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
	// scrub holds the secrets a subcommand found; runEnv scrubs stderr with it, line by line,
	// so errors and progress are scrubbed too (nil outside runEnv: see scrubber).
	scrub *redact.Redactor
	// iso is who user commands run as (the zero value, in tests run in-process: evalgate's
	// own user, unannounced).
	iso proc.Isolation
}

// scrubber is the Redactor stderr is scrubbed with.
func (e env) scrubber() *redact.Redactor {
	if e.scrub == nil {
		return redact.New()
	}
	return e.scrub
}

// actions reports whether evalgate runs under GitHub Actions, whose runner reads its output
// for workflow commands.
func actions(e env) bool { return e.getenv("GITHUB_ACTIONS") == "true" }

// run is the whole program as a function of its inputs; it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return runEnv(ctx, args, env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv})
}

func runEnv(ctx context.Context, args []string, e env) int {
	if e.scrub == nil {
		e.scrub = redact.New()
	}
	if actions(e) {
		// Under Actions every line evalgate prints is read for workflow commands, and most
		// carry repository, agent or model text: none may issue one. evalgate's own
		// commands (::add-mask::, ::stop-commands::) pass through safetext.Command.
		out, errw := safetext.Lines(e.stdout, safetext.NoCommands), safetext.Lines(e.stderr, safetext.NoCommands)
		defer out.Flush()
		defer errw.Flush()
		e.stdout, e.stderr = out, errw
	}
	// Whatever a subcommand prints to stderr, and the error runEnv prints, loses the secrets
	// it has found by then; stdout is scrubbed where it is written (a terminal stays one).
	log := safetext.Lines(e.stderr, e.scrub.String)
	defer log.Flush()
	e.stderr = log
	root, st := newRootCmd(e)
	if len(args) == 0 {
		// A bare "evalgate" is a mistake in a script, not a request for help: usage on
		// stderr, exit 2. cobra adds its help and completion commands only when executing.
		root.InitDefaultHelpCmd()
		root.InitDefaultCompletionCmd()
		root.InitDefaultHelpFlag()
		fmt.Fprint(e.stderr, root.UsageString())
		return exitUsage
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && !st.ran {
		// cobra failed before any command ran: an unknown command, flag or argument.
		if cmd == root && !isCommand(root, firstArg(args)) {
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
