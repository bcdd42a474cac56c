package proc

import (
	"fmt"
	"io"
)

// isolationEnv turns the isolation user off. It is the workflow's (or the shell's) to set,
// never repository content's: eval and targets files cannot reach evalgate's environment.
const isolationEnv = "EVALGATE_ISOLATION"

// Isolation is who user commands run as, decided once (in main) for the whole process.
type Isolation struct {
	// User is the unprivileged account commands run as; nil = evalgate's own user.
	User *User
	// Note is said once on stderr by a run that may start user commands, when they run with
	// less isolation than the image gives them.
	Note string
}

// DecideIsolation picks the isolation of a process with effective uid euid: as root, user
// commands run as AgentUID unless EVALGATE_ISOLATION=off; otherwise evalgate cannot
// switch users and says so.
func DecideIsolation(euid int, getenv func(string) string) (Isolation, error) {
	switch v := getenv(isolationEnv); {
	case v != "" && v != "off" && v != "on":
		return Isolation{}, fmt.Errorf("%s must be on or off, not %q", isolationEnv, v)
	case euid != 0:
		return Isolation{Note: "evalgate: isolation is reduced: not running as root, agents, hooks and graders run as your own user and can write what you can and signal evalgate; they still get none of its secrets (see docs/security.md#the-isolation-user)"}, nil
	case v == "off":
		return Isolation{Note: "evalgate: isolation is reduced: " + isolationEnv + "=off, agents, hooks and graders run as root, with write access to the checkout, the cache and the reports"}, nil
	}
	u, err := NewUser("", AgentUID, AgentGID)
	if err != nil {
		return Isolation{}, err
	}
	return Isolation{User: u}, nil
}

// Announce says once, at the start of a run, what isolation is reduced.
func (i Isolation) Announce(stderr io.Writer) {
	if i.Note != "" {
		fmt.Fprintln(stderr, i.Note)
	}
}
