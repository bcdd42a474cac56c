package main

import (
	"fmt"
	"io"

	"github.com/evalgate/evalgate/internal/proc"
)

// isolationEnv turns the isolation user off. It is the workflow's (or the shell's) to set,
// never repository content's: eval and targets files cannot reach evalgate's environment.
const isolationEnv = "EVALGATE_ISOLATION"

// isolation is who user commands run as, decided once in main for the whole process.
type isolation struct {
	// user is the unprivileged account commands run as; nil = evalgate's own user.
	user *proc.User
	// note is said once on stderr by a run that may start user commands, when they run with
	// less isolation than the image gives them.
	note string
}

// decideIsolation picks the isolation of a process with effective uid euid: as root, user
// commands run as proc.AgentUID unless EVALGATE_ISOLATION=off; otherwise evalgate cannot
// switch users and says so.
func decideIsolation(euid int, getenv func(string) string) (isolation, error) {
	switch v := getenv(isolationEnv); {
	case v != "" && v != "off" && v != "on":
		return isolation{}, fmt.Errorf("%s must be on or off, not %q", isolationEnv, v)
	case euid != 0:
		return isolation{note: "evalgate: isolation is reduced: not running as root, agents, hooks and graders run as your own user and can write what you can and signal evalgate; they still get none of its secrets (see docs/security.md#the-isolation-user)"}, nil
	case v == "off":
		return isolation{note: "evalgate: isolation is reduced: " + isolationEnv + "=off, agents, hooks and graders run as root, with write access to the checkout, the cache and the reports"}, nil
	}
	u, err := proc.NewUser("", proc.AgentUID, proc.AgentGID)
	if err != nil {
		return isolation{}, err
	}
	return isolation{user: u}, nil
}

// announce says once, at the start of a run, what isolation is reduced.
func (i isolation) announce(stderr io.Writer) {
	if i.note != "" {
		fmt.Fprintln(stderr, i.note)
	}
}
