package toolcall

import (
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/safetext"
)

// maxKeyArgument is AgentV's cut for a tool call's key argument.
const maxKeyArgument = 120

// toolFields are the argument each well-known tool is summarised by (AgentV's rules).
var toolFields = map[string]string{
	"Skill": "skill", "Read": "file_path", "Write": "file_path", "Edit": "file_path",
	"Bash": "command", "Grep": "pattern", "Glob": "pattern",
}

// keyFields are the arguments that say most about other calls, best first.
var keyFields = []string{"file_path", "path", "command", "pattern", "query", "url", "skill"}

// KeyArgument is the most telling argument of a call on one line (whitespace collapsed, cut at
// 120 characters), or "" when it has no string argument.
func KeyArgument(tc result.ToolCall) string {
	s := keyArgument(tc.Tool, tc.Input)
	s = strings.Join(strings.Fields(s), " ")
	if cut := safetext.TruncateRunes(s, maxKeyArgument); len(cut) < len(s) {
		return cut + "…"
	}
	return s
}

func keyArgument(tool string, input any) string {
	switch in := input.(type) {
	case string:
		return in // arguments that were not a JSON object
	case map[string]any:
		if s, ok := in[toolFields[tool]].(string); ok && s != "" {
			return s
		}
		for _, k := range keyFields {
			if s, ok := in[k].(string); ok && s != "" {
				return s
			}
		}
		keys := make([]string, 0, len(in))
		for k := range in {
			keys = append(keys, k)
		}
		sort.Strings(keys) // map order is random; the fallback must be stable
		for _, k := range keys {
			if s, ok := in[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}
