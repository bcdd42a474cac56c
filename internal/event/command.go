package event

import "strings"

// DefaultCommand is the slash command prefix evalgate answers to.
const DefaultCommand = "/evalgate"

// Command is a parsed slash command, e.g. "/evalgate rerun evals/billing/**".
type Command struct {
	Name string
	Args []string
}

// ParseCommand finds the first line of body that starts with prefix followed by a space or the
// end of the line, and returns its verb and arguments. Lines are checked one by one so a
// command can follow a sentence, while "/evalgaterun" or a prefix inside a quote ("> /evalgate")
// or code is not a command.
func ParseCommand(body, prefix string) (Command, bool) {
	if prefix == "" {
		prefix = DefaultCommand
	}
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, prefix) {
			continue
		}
		rest := line[len(prefix):]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return Command{}, false
		}
		return Command{Name: f[0], Args: f[1:]}, true
	}
	return Command{}, false
}
