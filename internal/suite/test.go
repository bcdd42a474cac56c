package suite

import (
	"encoding/json"
	"strings"

	"gopkg.in/yaml.v3"
)

// test reads one test mapping; nil when it cannot be used (the error is recorded). The steps run
// in a fixed order because their diagnostics are reported in that order.
func (r *reader) test(n *yaml.Node, s *Suite, d *defaults) *Test {
	defer r.withFile(n)()
	f, ok := r.fields(n, "test", testKeys...)
	if !ok {
		return nil
	}
	t := r.testID(n, f)
	if t == nil {
		return nil
	}
	// The test's own strings render its vars; what was read before them (the id) renders none.
	sc := r.testVars(f, t, d)
	t.Criteria = r.testCriteria(sc, n, f, t.ID)
	skipDefaults := r.testExecution(sc, f, t)
	r.testThreshold(sc, f, t, d)
	if !r.testInput(sc, n, f, t, d, skipDefaults) {
		return nil
	}
	conv, ok := r.conversation(sc, n, f, t)
	if !ok {
		return nil
	}
	t.Conversation = conv
	r.testExpected(sc, f, t)
	r.testExtras(sc, f, t, s)
	r.warnUnimplemented(n, "test")
	r.dependencies(sc, f, t)
	t.Graders = r.testGraders(sc, f, t, d, skipDefaults)
	if !r.testGradable(n, t) {
		return nil
	}
	return t
}

// slugID suggests an id for a description: lower case, words joined by "-", at most 40 bytes.
func slugID(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "my-test"
	}
	return b.String()
}

// testID starts a test from its id; nil when the id is missing or not a usable name.
func (r *reader) testID(n *yaml.Node, f map[string]*yaml.Node) *Test {
	t := &Test{Pos: r.pos(n), Target: ""}
	t.ID = r.optStr(scope{}, f, "id", "test")
	if t.ID == "" {
		if d := f["description"]; d != nil && d.Value != "" {
			// promptfoo names a test by its description; AgentV (and the baseline, which
			// pairs tests by id) need an id that stays put when the wording changes.
			r.errorf(n, "test has no id (promptfoo's description names no test here: add id: %s)", slugID(d.Value))
			return nil
		}
		r.errorf(n, "test has no id")
		return nil
	}
	if !r.checkName(f["id"], "test id", t.ID) {
		return nil
	}
	return t
}

// testVars merges the test's vars over the suite's and returns them as the scope the test's
// own strings are read in: per-test vars apply to those only.
func (r *reader) testVars(f map[string]*yaml.Node, t *Test, d *defaults) scope {
	if v, ok := f["vars"]; ok {
		if m, ok := r.value(scope{}, v).(map[string]any); ok {
			t.Vars = m
		} else {
			r.errorf(v, "test %s: vars must be a mapping", t.ID)
		}
	}
	if d.vars != nil {
		merged := map[string]any{}
		for k, v := range d.vars {
			merged[k] = v
		}
		for k, v := range t.Vars {
			merged[k] = v
		}
		t.Vars = merged
	}
	return scope{vars: t.Vars}
}

// testCriteria reads criteria, falling back to AgentV's older expected_outcome and then to the
// description.
func (r *reader) testCriteria(sc scope, n *yaml.Node, f map[string]*yaml.Node, id string) string {
	c := r.optStr(sc, f, "criteria", "test")
	if c == "" {
		c = r.optStr(sc, f, "expected_outcome", "test")
	} else if _, both := f["expected_outcome"]; both {
		r.warnf(keyNode(n, "expected_outcome"), "test %s: expected_outcome is ignored when criteria is set", id)
	}
	if c == "" {
		c = r.optStr(sc, f, "description", "test")
	}
	return c
}

// testExecution reads the execution block (target, targets, threshold) and reports whether the
// test opts out of the suite defaults.
func (r *reader) testExecution(sc scope, f map[string]*yaml.Node, t *Test) (skipDefaults bool) {
	e, ok := f["execution"]
	if !ok {
		return false
	}
	ef, ok := r.fields(e, "test.execution", executionKeys...)
	if !ok {
		return false
	}
	r.warnUnimplemented(e, "test.execution")
	t.Target = r.optStr(sc, ef, "target", "execution")
	if tg, ok := ef["targets"]; ok && !isNull(tg) {
		t.Targets, t.targetsPos = r.testTargets(sc, tg, t.ID), r.pos(tg)
	}
	if th, ok := ef["threshold"]; ok {
		t.Threshold = r.threshold(sc, th, "execution.threshold")
	}
	if sd, ok := ef["skip_defaults"]; ok {
		skipDefaults, _ = r.boolean(sc, sd, "skip_defaults")
	}
	return skipDefaults
}

// testThreshold applies a top-level threshold, which wins over execution.threshold; the suite's
// applies only when neither is set.
func (r *reader) testThreshold(sc scope, f map[string]*yaml.Node, t *Test, d *defaults) {
	if th, ok := f["threshold"]; ok {
		t.Threshold = r.threshold(sc, th, "threshold")
	} else if t.Threshold == nil {
		t.Threshold = d.threshold
	}
}

// testInput reads the input messages and files: the test's own, after the suite's (unless
// skip_defaults). False when the test ends up with nothing to ask.
func (r *reader) testInput(sc scope, n *yaml.Node, f map[string]*yaml.Node, t *Test, d *defaults, skipDefaults bool) bool {
	if !skipDefaults {
		t.Input = append(t.Input, d.input...)
		t.InputFiles = append(t.InputFiles, d.inputFiles...)
	}
	switch {
	case f["input"] != nil:
		t.Input = append(t.Input, r.messages(sc, f["input"], "input", "user")...)
	case f["input_messages"] != nil:
		t.Input = append(t.Input, r.messages(sc, f["input_messages"], "input_messages", "user")...)
	case d.prompt != nil:
		// The suite prompt's positions belong to the file it came from.
		saved := r.file
		r.file = d.promptFile
		t.Input = append(t.Input, Message{Role: "user", Content: r.interp(sc, d.prompt, d.prompt.Value)})
		r.file = saved
	}
	if fl, ok := f["input_files"]; ok {
		files := r.files(sc, fl, "input_files")
		t.InputFiles = append(t.InputFiles, files...)
		if len(t.Input) > 0 {
			last := &t.Input[len(t.Input)-1]
			last.Files = append(last.Files, files...)
		}
	}
	t.InputFiles = blockFiles(t.InputFiles, t.Input)
	if len(t.Input) == 0 || strings.TrimSpace(t.Question()) == "" {
		r.errorf(n, "test %s has no input", t.ID)
		return false
	}
	return true
}

// testExpected reads the expected output; a conversation carries its own per turn instead.
func (r *reader) testExpected(sc scope, f map[string]*yaml.Node, t *Test) {
	switch {
	case t.Conversation != nil:
	case f["expected_output"] != nil:
		t.ExpectedOutput = r.messages(sc, f["expected_output"], "expected_output", "assistant")
	case f["expected_messages"] != nil:
		t.ExpectedOutput = r.messages(sc, f["expected_messages"], "expected_messages", "assistant")
	}
}

// testExtras reads the optional workspace, metadata and tags.
func (r *reader) testExtras(sc scope, f map[string]*yaml.Node, t *Test, s *Suite) {
	if w, ok := f["workspace"]; ok {
		t.Workspace = r.testWorkspace(s, t, r.workspaceSpec(sc, w))
	}
	if m, ok := f["metadata"]; ok {
		t.Metadata, _ = r.value(sc, m).(map[string]any)
	}
	if tg, ok := f["tags"]; ok {
		t.Tags = r.tags(sc, tg)
	}
}

// testGradable checks that the test can be graded and, when it names no grader, adds AgentV's
// implicit one. False when there is nothing to grade against.
func (r *reader) testGradable(n *yaml.Node, t *Test) bool {
	conv := t.Conversation
	if t.Criteria == "" && len(t.ExpectedOutput) == 0 && len(t.Graders) == 0 && conv == nil {
		r.errorf(n, "test %s needs criteria, expected_output or assertions", t.ID)
		return false
	}
	// A conversation is graded turn by turn; its own graders, if any, grade the transcript.
	if len(t.Graders) == 0 && conv == nil {
		// AgentV's implicit grader: a freeform judge on the test's criteria.
		t.Graders = []*Grader{{Name: "llm-grader", Type: "llm-grader", Weight: 1, Pos: t.Pos}}
	}
	return true
}

// testGraders collects a test's graders: inline rubrics first (AgentV prepends them), then its
// assertions, then the suite defaults.
func (r *reader) testGraders(sc scope, f map[string]*yaml.Node, t *Test, d *defaults, skipDefaults bool) []*Grader {
	var gs []*Grader
	if rb, ok := f["rubrics"]; ok {
		g := &Grader{Name: "rubrics", Type: "rubrics", Weight: 1, Pos: r.pos(rb)}
		g.Criteria = r.criteria(sc, rb, "rubrics", false)
		gs = append(gs, g)
	}
	for _, k := range []string{"assertions", "assert", "evaluators"} {
		if a, ok := f[k]; ok {
			gs = append(gs, r.graders(sc, a, k)...)
			break
		}
	}
	if e, ok := f["execution"]; ok {
		if ef, _ := r.quietFields(e); ef != nil {
			for _, k := range []string{"assertions", "evaluators"} {
				if a, ok := ef[k]; ok {
					gs = append(gs, r.graders(sc, a, "execution."+k)...)
				}
			}
		}
	}
	if !skipDefaults {
		gs = append(gs, d.graders...)
	}
	if d.judge != "" {
		setJudge(gs, d.judge)
	}
	if d.rubricPrompt != "" {
		for _, g := range gs {
			if g.Type == "rubrics" && g.Prompt == "" {
				g.Prompt, g.PromptIsTemplate = d.rubricPrompt, templateVr.MatchString(d.rubricPrompt)
			}
		}
	}
	return gs
}

// setJudge gives judge graders (composite members too) without a target: of their own the
// default_test's judge; a grader's own target: wins, as in promptfoo.
func setJudge(gs []*Grader, judge string) {
	for _, g := range gs {
		setJudge(g.Members, judge)
		if g.Target == "" && g.IsJudge() {
			g.Target = judge
		}
	}
}

// quietFields reads a mapping without reporting (it was reported once already).
func (r *reader) quietFields(n *yaml.Node) (map[string]*yaml.Node, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, false
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = resolve(n.Content[i+1])
	}
	return out, true
}

// messages reads input or expected output: a string, one message, a message list, or content
// blocks; defaultRole applies to bare content.
func (r *reader) messages(sc scope, n *yaml.Node, what, defaultRole string) []Message {
	n = resolve(n)
	switch n.Kind {
	case yaml.ScalarNode:
		if what == "input" && (n.Tag == "!!int" || n.Tag == "!!float" || n.Tag == "!!bool") {
			r.errorf(n, "input must be text, a message or a list of messages, not %s (quote it to send it as text)", kindOf(n))
			return nil
		}
		s, _ := r.str(sc, n, what)
		return []Message{{Role: defaultRole, Content: s}}
	case yaml.MappingNode:
		if keyNode(n, "role") != n {
			return []Message{r.message(sc, n, what, defaultRole)}
		}
		b, _ := json.MarshalIndent(r.value(sc, n), "", "  ")
		return []Message{{Role: defaultRole, Content: string(b)}}
	case yaml.SequenceNode:
		if len(n.Content) > 0 && keyNode(n.Content[0], "type") != resolve(n.Content[0]) && keyNode(n.Content[0], "role") == resolve(n.Content[0]) {
			m := Message{Role: defaultRole}
			r.blocks(sc, n, what, &m)
			return []Message{m}
		}
		var out []Message
		for _, c := range n.Content {
			out = append(out, r.message(sc, c, what+"[]", defaultRole))
		}
		return out
	}
	r.errorf(n, "%s must be text, a message or a list of messages, not %s", what, kindOf(n))
	return nil
}

func (r *reader) message(sc scope, n *yaml.Node, what, defaultRole string) Message {
	f, ok := r.fields(n, what, "role", "content", "tool_calls", "name", "metadata")
	m := Message{Role: defaultRole}
	if !ok {
		return m
	}
	if role := r.optStr(sc, f, "role", what); role != "" {
		m.Role = role
	}
	if c, ok := f["content"]; ok {
		c = resolve(c)
		switch c.Kind {
		case yaml.ScalarNode:
			m.Content, _ = r.str(sc, c, what+".content")
		case yaml.SequenceNode:
			r.blocks(sc, c, what+".content", &m)
		default:
			b, _ := json.MarshalIndent(r.value(sc, c), "", "  ")
			m.Content = string(b)
		}
	}
	if tc, ok := f["tool_calls"]; ok {
		if list, ok := r.value(sc, tc).([]any); ok {
			for _, x := range list {
				if mm, ok := x.(map[string]any); ok {
					m.ToolCalls = append(m.ToolCalls, mm)
				}
			}
		}
		if m.Content == "" {
			b, _ := json.Marshal(r.value(sc, tc))
			m.Content = string(b)
		}
	}
	return m
}

// files reads a list of file references.
func (r *reader) files(sc scope, n *yaml.Node, what string) []string {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s must be a list of paths, not %s", what, kindOf(n))
		return nil
	}
	var out []string
	for _, c := range n.Content {
		if s, ok := r.str(sc, c, what+"[]"); ok {
			if p, ok := r.path(c, s); ok {
				out = append(out, p)
			}
		}
	}
	return out
}
