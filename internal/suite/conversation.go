package suite

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Conversation is a mode: conversation test (AgentV 4.42): its turns are sent to the target one
// after another, each with the conversation so far, and each turn is graded on its own.
type Conversation struct {
	Turns []*Turn
	// Aggregation combines the turn scores (and the conversation-level score, when the test has
	// graders) into the test's score: "mean" (default), "min" or "max".
	Aggregation string
	// OnTurnFailure is "continue" (default) or "stop": after a turn that does not pass, the
	// remaining turns are skipped and score 0.
	OnTurnFailure string
	// WindowSize keeps the system messages and the last WindowSize user/assistant pairs of the
	// history in what each turn sends and grades; 0 keeps the whole history.
	WindowSize int
	Pos        Pos
}

// Turn is one user turn of a conversation.
type Turn struct {
	// Input is the user message (structured content is its JSON text, as AgentV sends it).
	Input string
	// ExpectedOutput is the turn's reference answer; it is not carried into the history.
	ExpectedOutput []Message
	// Graders grade this turn's answer; bare-string assertions are one rubrics grader.
	Graders []*Grader
	Pos     Pos
}

// Conversation modes, aggregations and turn-failure policies, as AgentV spells them.
const (
	ModeConversation = "conversation"
	AggregateMean    = "mean"
	AggregateMin     = "min"
	AggregateMax     = "max"
	OnTurnContinue   = "continue"
	OnTurnStop       = "stop"
)

var (
	conversationKeys = []string{"turns", "aggregation", "on_turn_failure", "window_size"}
	turnKeys         = []string{"input", "expected_output", "assertions"}
)

// conversation reads mode: conversation and its fields. ok is false when they are wrong; a
// conversation field without mode: conversation is an error, as AgentV's validator has it.
func (r *reader) conversation(sc scope, n *yaml.Node, f map[string]*yaml.Node, t *Test) (c *Conversation, ok bool) {
	mode := r.optStr(sc, f, "mode", "test")
	if mode == "" {
		ok = true
		for _, k := range conversationKeys {
			if _, set := f[k]; set {
				r.errorf(keyNode(n, k), "test %s: %s requires mode: conversation", t.ID, k)
				ok = false
			}
		}
		return nil, ok
	}
	if mode != ModeConversation {
		r.errorf(f["mode"], "test %s: mode must be %q (the only mode AgentV 4.42 has), not %q", t.ID, ModeConversation, mode)
		return nil, false
	}
	ok = true
	c = &Conversation{Aggregation: AggregateMean, OnTurnFailure: OnTurnContinue, Pos: r.pos(keyNode(n, "mode"))}
	for _, k := range []string{"expected_output", "expected_messages"} {
		if _, set := f[k]; set {
			r.errorf(keyNode(n, k), "test %s: a top-level %s is not allowed with mode: conversation (give each turn its expected_output)", t.ID, k)
			ok = false
		}
	}
	if a := r.optStr(sc, f, "aggregation", "test"); a != "" {
		if a != AggregateMean && a != AggregateMin && a != AggregateMax {
			r.errorf(f["aggregation"], "test %s: aggregation must be mean, min or max, not %q", t.ID, a)
			ok = false
		}
		c.Aggregation = a
	}
	if p := r.optStr(sc, f, "on_turn_failure", "test"); p != "" {
		if p != OnTurnContinue && p != OnTurnStop {
			r.errorf(f["on_turn_failure"], "test %s: on_turn_failure must be continue or stop, not %q", t.ID, p)
			ok = false
		}
		c.OnTurnFailure = p
	}
	if w, set := f["window_size"]; set {
		if size, isInt := r.integer(sc, w, "window_size"); !isInt {
			ok = false
		} else if size < 1 {
			r.errorf(w, "test %s: window_size must be at least 1 (the user/assistant pairs kept), not %d; leave it out to keep the whole conversation", t.ID, size)
			ok = false
		} else {
			c.WindowSize = size
		}
	}
	tn, set := f["turns"]
	if !set || tn.Kind != yaml.SequenceNode || len(tn.Content) == 0 {
		at := keyNode(n, "mode")
		if set {
			at = tn
		}
		r.errorf(at, "test %s: mode: conversation requires a non-empty turns list", t.ID)
		return c, false
	}
	for i, item := range tn.Content {
		turn := r.turn(sc, item, t, i+1)
		if turn == nil {
			ok = false
			continue
		}
		c.Turns = append(c.Turns, turn)
	}
	return c, ok
}

// turn reads one turns[] entry; nil when it cannot be used (the error is recorded).
func (r *reader) turn(sc scope, n *yaml.Node, t *Test, i int) *Turn {
	what := fmt.Sprintf("test %s: turns[%d]", t.ID, i-1)
	f, ok := r.fields(n, what, turnKeys...)
	if !ok {
		return nil
	}
	turn := &Turn{Pos: r.pos(resolve(n))}
	in, set := f["input"]
	if set && !isNull(in) {
		turn.Input = r.turnInput(sc, in, what+".input")
	}
	if strings.TrimSpace(turn.Input) == "" {
		r.errorf(valueNode(n, "input"), "%s needs a non-empty input (the user message of this turn)", what)
		return nil
	}
	if e, set := f["expected_output"]; set && !isNull(e) {
		turn.ExpectedOutput = r.messages(sc, e, "turns[].expected_output", "assistant")
	}
	if a, set := f["assertions"]; set && !isNull(a) {
		turn.Graders = r.graders(sc, a, "turns[].assertions")
		turnRubricGroup(a, turn.Graders)
	}
	return turn
}

// turnInput is a turn's user message: text, or the JSON of structured content (AgentV sends
// JSON.stringify of it).
func (r *reader) turnInput(sc scope, n *yaml.Node, what string) string {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		s, _ := r.str(sc, n, what)
		return s
	}
	b, err := json.Marshal(r.value(sc, n))
	if err != nil {
		r.errorf(n, "%s: %v", what, err)
		return ""
	}
	return string(b)
}

// turnRubricGroup renames a turn's bare-string group as AgentV builds it at run time: one
// "turn-rubrics" grader of weight 1, whatever the number of strings.
func turnRubricGroup(list *yaml.Node, gs []*Grader) {
	list = resolve(list)
	for _, item := range list.Content {
		item = resolve(item)
		if item.Kind != yaml.ScalarNode {
			continue
		}
		for _, g := range gs {
			if g.Type == "rubrics" && g.Pos.Line == item.Line && g.Pos.Col == item.Column {
				g.Name, g.Weight = "turn-rubrics", 1
			}
		}
		return
	}
}

// Turns returns the test's turns, nil unless it is a conversation.
func (t *Test) Turns() []*Turn {
	if t.Conversation == nil {
		return nil
	}
	return t.Conversation.Turns
}
