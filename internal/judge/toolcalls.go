package judge

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/toolcall"
)

// toolCallLine summarises a tool call in one line: "- Tool: key argument".
func toolCallLine(tc result.ToolCall) string {
	if arg := toolcall.KeyArgument(tc); arg != "" {
		return fmt.Sprintf("- %s: %s", tc.Tool, arg)
	}
	return "- " + tc.Tool
}

func toolCallLines(calls []result.ToolCall) string {
	lines := make([]string, len(calls))
	for i, tc := range calls {
		lines[i] = toolCallLine(tc)
	}
	return strings.Join(lines, "\n")
}
