package toolcall

import "github.com/evalgate/evalgate/internal/result"

// transcript collects messages and tool calls while a stream is read. Results arrive after
// their calls, so calls are kept in one slice and messages refer to them by index; build copies
// the finished calls into the messages at the end.
type transcript struct {
	calls []result.ToolCall
	byID  map[string]int
	msgs  []entry
}

type entry struct {
	role, content string
	// id is the provider's message id: Claude sends one event per content block of the same
	// message, and those are merged into one transcript message.
	id    string
	calls []int
}

// add appends a message, or extends the previous one when it has the same non-empty id.
func (t *transcript) add(role, id, text string, calls []result.ToolCall) {
	if text == "" && len(calls) == 0 {
		return
	}
	if n := len(t.msgs); n > 0 && id != "" && t.msgs[n-1].id == id && t.msgs[n-1].role == role {
		last := &t.msgs[n-1]
		last.content = joinText(last.content, text)
		last.calls = append(last.calls, t.addCalls(calls)...)
		return
	}
	t.msgs = append(t.msgs, entry{role: role, content: text, id: id, calls: t.addCalls(calls)})
}

func (t *transcript) addCalls(calls []result.ToolCall) []int {
	var idx []int
	for _, c := range calls {
		if t.byID == nil {
			t.byID = map[string]int{}
		}
		if c.ID != "" {
			t.byID[c.ID] = len(t.calls)
		}
		idx = append(idx, len(t.calls))
		t.calls = append(t.calls, c)
	}
	return idx
}

// resolve attaches a tool's result to the call with that id. A result whose call is unknown is
// dropped: there is nothing to attach it to, and graders look at calls.
func (t *transcript) resolve(id string, output any, status string) {
	if i, ok := t.byID[id]; ok && id != "" {
		t.calls[i].Output = output
		t.calls[i].Status = status
	}
}

// lastAssistant is the text of the last assistant message that has any.
func (t *transcript) lastAssistant() string {
	for i := len(t.msgs) - 1; i >= 0; i-- {
		if t.msgs[i].role == "assistant" && t.msgs[i].content != "" {
			return t.msgs[i].content
		}
	}
	return ""
}

// output builds the Output's messages and tool calls.
func (t *transcript) output() *result.Output {
	out := &result.Output{ToolCalls: t.calls}
	for _, m := range t.msgs {
		msg := result.Message{Role: m.role, Content: m.content}
		for _, i := range m.calls {
			msg.ToolCalls = append(msg.ToolCalls, t.calls[i])
		}
		out.Messages = append(out.Messages, msg)
	}
	out.Answer = t.lastAssistant()
	return out
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
