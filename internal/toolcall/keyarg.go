package toolcall

import (
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// maxKeyArgument is AgentV's cut for a tool call's key argument.
const maxKeyArgument = 120

// keyFields are the arguments that say most about a call, best first.
var keyFields = []string{"file_path", "path", "command", "pattern", "query", "url", "skill"}

// KeyArgument is the most telling argument of a call on one line (whitespace collapsed, cut at
// 120 characters), or "" when it has no string argument.
func KeyArgument(tc result.ToolCall) string {
	s := keyArgument(tc.Input)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxKeyArgument {
		s = string(r[:maxKeyArgument]) + "…"
	}
	return s
}

func keyArgument(input any) string {
	switch in := input.(type) {
	case string:
		return in // arguments that were not a JSON object
	case map[string]any:
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
