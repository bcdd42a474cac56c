package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/textdist"
)

// cliState records what happened inside cobra, so runEnv can tell a usage error (cobra
// failed before a command ran) from a command's own error.
type cliState struct {
	ran bool
}

// newRootCmd builds the command tree. Commands print nothing themselves on error: runEnv
// prints every error once, as "evalgate: …".
func newRootCmd(e env) (*cobra.Command, *cliState) {
	st := &cliState{}
	root := &cobra.Command{
		Use:   "evalgate",
		Short: "Grade LLM agents with AgentV-style eval suites and gate pull requests on the result",
		Long: `evalgate runs AgentV-style eval suites, grades every test with an LLM rubric judge and
deterministic graders, prints a per-criterion table and gates on the result.

Exit codes: 0 the gate passed, 1 the gate failed, 2 usage or configuration error,
130 interrupted.`,
		Example: `  evalgate run evals/                            # every suite under evals/
  evalgate run evals/greeter.eval.yaml --workers 8
  evalgate validate evals/
  evalgate action --dry-run --repo .              # what the GitHub Action would post`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// --version is ours, not cobra's: cobra prints a custom version line only through
	// SetVersionTemplate, and executing a text/template makes reflect's MethodByName
	// reachable, which turns off the linker's dead-code elimination for the whole program
	// (cobra issue #2015): the binary was twice the size for one line of output.
	root.Flags().BoolP("version", "v", false, "print the version")
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		if v, _ := cmd.Flags().GetBool("version"); v {
			st.ran = true
			fmt.Fprintf(cmd.OutOrStdout(), "evalgate %s\n", versionString())
			return nil
		}
		return cmd.Help()
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetIn(e.stdin)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newRunCmd(e, st), newValidateCmd(e, st), newActionCmd(e, st), newVersionCmd(st))
	root.AddCommand(newMergeCmd(e, st), newExportCmd(e, st), newCalibrateCmd(e, st))
	root.AddCommand(newSchemaCmd(st))
	root.AddCommand(newInitCmd(e, st))
	root.AddCommand(newCompareCmd(e, st))
	root.AddCommand(newReportCmd(e, st))
	root.AddCommand(newViewCmd(e, st))
	return root, st
}

// runE marks the command as started: from here on an error is the command's, not a usage error.
func runE(st *cliState, f func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		st.ran = true
		return f(cmd, args)
	}
}

func newVersionCmd(st *cliState) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  noArgs,
		RunE: runE(st, func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "evalgate %s\n", versionString())
			return nil
		}),
	}
}

// noArgs refuses positional arguments, naming the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", cmd.CommandPath(), args[0])
	}
	return nil
}

// unknownCommand rewrites cobra's unknown-command error as one line with cobra's suggestions.
func unknownCommand(root *cobra.Command, args []string) error {
	name := firstArg(args)
	msg := fmt.Sprintf("unknown command %q", name)
	if name == "eval" {
		// AgentV's commands are grouped under eval; evalgate's are not.
		return fmt.Errorf(`%s: "agentv eval run FILE" is "evalgate run FILE" (and "agentv validate" is "evalgate validate"); commands: %s`,
			msg, strings.Join(commandNames(root), ", "))
	}
	if s := root.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return fmt.Errorf("%s; commands: %s", msg, strings.Join(commandNames(root), ", "))
}

// firstArg is the first argument that is not a flag, "" when there is none.
func firstArg(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// isCommand says whether name is one of root's commands or their aliases; cobra's own
// "unknown command" error is untyped, so the run asks the tree rather than read its text.
func isCommand(root *cobra.Command, name string) bool {
	if name == "" {
		return true
	}
	for _, c := range root.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return true
		}
	}
	return false
}

func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return names
}

// flagError adds a did-you-mean to pflag's unknown-flag errors; cobra suggests only commands.
func flagError(cmd *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		return invalidArgument(iv, err)
	}
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	// "-workers" (Go's flag package accepted one dash) reads as shorthands -w -o …: the
	// group is what was typed.
	typed := ne.GetSpecifiedName()
	if group := ne.GetSpecifiedShortnames(); group != "" {
		typed = group
	}
	typed, _, _ = strings.Cut(typed, "=")
	if h, ok := agentvFlags[typed]; ok && cmd.Flags().Lookup(h.flag) != nil {
		return fmt.Errorf("%w (AgentV's --%s: here %s)", err, typed, h.hint)
	}
	if s := closestFlag(cmd.Flags(), typed); s != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, s)
	}
	return err
}

// invalidArgument replaces the Go parser's words in pflag's message (`invalid argument "eight"
// for "--workers" flag: strconv.ParseInt: parsing "eight": invalid syntax`) with what the
// flag's type wants.
func invalidArgument(iv *pflag.InvalidValueError, err error) error {
	f := iv.GetFlag()
	var want string
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		want = "not a whole number"
	case "float32", "float64":
		want = "not a number"
	case "bool":
		want = "not true or false"
	case "duration":
		want = "not a duration (e.g. 90s, 10m, 1h)"
	default:
		return err
	}
	name := "--" + f.Name
	if f.Shorthand != "" && f.ShorthandDeprecated == "" {
		name = "-" + f.Shorthand + ", " + name
	}
	return fmt.Errorf("invalid argument %q for %q flag: %s", iv.GetValue(), name, want)
}

// agentvFlags are flags of `agentv eval run` that evalgate spells differently: the flag of
// evalgate's that does the job (the hint is given only where the command has it) and how.
var agentvFlags = map[string]struct{ flag, hint string }{
	"output":        {"out", "--out DIR writes results.json, junit.xml and the other reports into DIR"},
	"grader-target": {"judge", "--judge NAME grades with that target"},
	"judge-target":  {"judge", "--judge NAME grades with that target"},
	"agent-timeout": {"timeout", "--timeout D (a duration, e.g. 10m or 90s) bounds each test"},
	"verbose":       {"format", "progress goes to stderr as tests finish, and --format json (or --out DIR) has every detail"},
}

// closestFlag is the flag name closest to typed: within edit distance 2, or one that typed is
// a prefix of; "" when none is close.
func closestFlag(fs *pflag.FlagSet, typed string) string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return textdist.Closest(typed, names)
}
