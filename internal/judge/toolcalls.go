package judge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// maxToolArg is AgentV's cut for a tool call's key argument.
const maxToolArg = 120

// keyArgs are the argument each well-known tool is summarised by (AgentV's rules).
var keyArgs = map[string]string{
	"Skill": "skill", "Read": "file_path", "Write": "file_path", "Edit": "file_path",
	"Bash": "command", "Grep": "pattern", "Glob": "pattern",
}

// ToolCallLine summarises a tool call in one line: "- Tool: key argument".
func ToolCallLine(tc result.ToolCall) string {
	arg := keyArg(tc)
	if arg == "" {
		return "- " + tc.Tool
	}
	arg = oneLine(arg)
	if r := []rune(arg); len(r) > maxToolArg {
		arg = string(r[:maxToolArg]) + "…"
	}
	return fmt.Sprintf("- %s: %s", tc.Tool, arg)
}

func keyArg(tc result.ToolCall) string {
	in, ok := tc.Input.(map[string]any)
	if !ok {
		if s, ok := tc.Input.(string); ok {
			return s
		}
		return ""
	}
	if k, ok := keyArgs[tc.Tool]; ok {
		if s, ok := in[k].(string); ok {
			return s
		}
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys) // map order is random; the first string field must be stable
	for _, k := range keys {
		if s, ok := in[k].(string); ok {
			return s
		}
	}
	return ""
}

func toolCallLines(calls []result.ToolCall) string {
	lines := make([]string, len(calls))
	for i, tc := range calls {
		lines[i] = ToolCallLine(tc)
	}
	return strings.Join(lines, "\n")
}
