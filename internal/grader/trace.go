package grader

import (
	"strings"

	"github.com/evalgate/evalgate/internal/result"
)

// traceSummary is AgentV's compact view of an agent trace (computeTraceSummary), with its
// snake_case wire names: code graders receive it on stdin.
type traceSummary struct {
	EventCount    int                `json:"event_count"`
	ToolCalls     map[string]int     `json:"tool_calls"`
	ErrorCount    int                `json:"error_count"`
	ToolDurations map[string][]int64 `json:"tool_durations,omitempty"`
	// LLMCallCount is nil when the target reported nothing to count.
	LLMCallCount *int `json:"llm_call_count"`
}

// summarize builds the trace summary of an output (nil output: an empty summary).
func summarize(out *result.Output) traceSummary {
	s := traceSummary{ToolCalls: map[string]int{}}
	for _, c := range toolCalls(out) {
		s.EventCount++
		s.ToolCalls[c.Tool]++
		if c.Status == "error" {
			s.ErrorCount++
		}
		if c.DurationMS > 0 {
			if s.ToolDurations == nil {
				s.ToolDurations = map[string][]int64{}
			}
			s.ToolDurations[c.Tool] = append(s.ToolDurations[c.Tool], c.DurationMS)
		}
	}
	if n, ok := llmCalls(out); ok {
		s.LLMCallCount = &n
	}
	return s
}

// llmCalls counts the target's model requests: the provider's count when it reported one, else
// the assistant turns of the transcript (each is one model response). ok is false when neither
// is known.
func llmCalls(out *result.Output) (int, bool) {
	if out == nil {
		return 0, false
	}
	if out.Usage.Calls > 0 {
		return out.Usage.Calls, true
	}
	n := 0
	for _, m := range out.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n, n > 0
}

// explorationTools are the read-only tools (lower case) whose share of the calls is the
// exploration ratio: AgentV's DEFAULT_EXPLORATION_TOOLS, plus LS and the built-in grader agent's
// file tools, which explore the same way.
var explorationTools = map[string]bool{
	"read": true, "grep": true, "glob": true, "search": true, "list": true, "ls": true,
	"websearch": true, "webfetch": true, "read_file": true, "list_files": true, "search_files": true,
}

// explorationRatio is the share of exploration calls among calls; ok is false with no calls.
func explorationRatio(calls []result.ToolCall) (float64, bool) {
	if len(calls) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range calls {
		if explorationTools[strings.ToLower(c.Tool)] {
			n++
		}
	}
	return float64(n) / float64(len(calls)), true
}
