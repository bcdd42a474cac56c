package suite

import "strings"

// Question renders the test's input as the target and the judge see it: a single message is
// its content; a conversation is AgentV's role-marked blocks (@[User]:, @[Assistant]:, …).
// File blocks of content lists appear as AgentV's references to the file (<file: path="…">).
func (t *Test) Question() string {
	if len(t.Input) == 1 {
		return t.Input[0].promptText()
	}
	parts := make([]string, 0, len(t.Input))
	for _, m := range t.Input {
		role := m.Role
		if role == "" {
			role = "user"
		}
		parts = append(parts, "@["+strings.ToUpper(role[:1])+role[1:]+"]:\n"+m.promptText())
	}
	return strings.Join(parts, "\n\n")
}
