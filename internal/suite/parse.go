package suite

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

var suiteKeys = []string{"$schema", "name", "description", "category", "version", "author", "tags", "license",
	"requires", "tests", "evalcases", "eval_cases", "input", "input_files", "execution", "assertions", "assert",
	"evaluators", "workspace", "target", "metadata", "governance", "preprocessors", "prompts", "providers", "defaults",
	"default_test", "evaluate_options", "threshold", "env", "scenarios", "output_path", "timeout_seconds", "evaluator"}

var executionKeys = []string{"target", "targets", "workers", "assertions", "evaluators", "skip_defaults", "cache",
	"trials", "budget_usd", "fail_on_error", "threshold", "timeout_seconds"}

// suiteExecutionKeys are a suite's execution keys: a test's, and the ones only a suite sets.
var suiteExecutionKeys = append(append([]string(nil), executionKeys...), "background_processes")

// defaults are what a suite gives each of its tests.
type defaults struct {
	input        []Message
	inputFiles   []string
	graders      []*Grader
	prompt       *yaml.Node // promptfoo prompts[0], rendered per test
	promptFile   string     // the file prompt was read from
	threshold    *float64
	rubricPrompt string
	// judge is default_test.options.provider: promptfoo's grading model, here the target
	// judge graders without a target: of their own use.
	judge string
	vars  map[string]any
}

// detect tells the dialect from the keys a file uses.
func detect(root *yaml.Node) Format {
	keys := map[string]*yaml.Node{}
	if root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			keys[root.Content[i].Value] = root.Content[i+1]
		}
	}
	if s, ok := keys["$schema"]; ok && strings.Contains(s.Value, "agentv-eval-v2") {
		return FormatLegacy
	}
	if _, ok := keys["evalcases"]; ok {
		return FormatLegacy
	}
	for _, k := range []string{"prompts", "providers", "default_test", "evaluate_options"} {
		if _, ok := keys[k]; ok {
			return FormatPromptfoo
		}
	}
	return FormatAgentV
}

func (r *reader) parse(data []byte, path string) (*Suite, Diagnostics) {
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return r.parseJSONL(data, path)
	}
	root := r.parseYAML(data)
	if root == nil {
		return nil, r.diags
	}
	r.format = detect(root)
	s := r.suite(root, path, nil)
	// A file with errors does not run at all: running the parts that parsed would grade
	// something other than what the author wrote.
	if r.diags.HasErrors() {
		return nil, r.diags
	}
	return s, r.diags
}

// suite reads the suite mapping; tests may come from elsewhere (JSONL rows) via extra.
func (r *reader) suite(root *yaml.Node, path string, extra []*yaml.Node) *Suite {
	f, ok := r.fields(root, "suite", suiteKeys...)
	if !ok {
		return nil
	}
	s := r.suiteHeader(root, f, path)
	d := r.suiteDefaults(root, f, s)
	r.suiteOptions(f, s, d)
	r.suiteTests(s, d, append(r.suiteTestNodes(root, f, extra), extra...))
	r.checkSchedule(s)
	inheritPreprocessors(s)
	r.finish(s)
	return s
}

// suiteHeader starts the suite from its name and description; a suite without a name is named
// after its file.
func (r *reader) suiteHeader(root *yaml.Node, f map[string]*yaml.Node, path string) *Suite {
	s := &Suite{Path: r.file, Dir: r.dir, Format: r.format, Target: "default"}
	s.Name = r.optStr(scope{}, f, "name", "suite")
	nameNode := f["name"]
	if s.Name == "" {
		s.Name, nameNode = defaultName(path), root
	}
	r.checkName(nameNode, "suite name", s.Name)
	s.Description = r.optStr(scope{}, f, "description", "suite")
	if r.format == FormatLegacy {
		r.warnf(root, "legacy AgentV format (evalcases, input_messages, execution.evaluators): evalgate runs it; AgentV 4.x expects tests, input and assertions")
	}
	return s
}

// suiteDefaults reads the target and execution settings and what every test inherits: graders,
// input and input files.
func (r *reader) suiteDefaults(root *yaml.Node, f map[string]*yaml.Node, s *Suite) *defaults {
	d := &defaults{}
	r.warnUnimplemented(root, "suite")
	if t := r.optStr(scope{}, f, "target", "suite"); t != "" {
		s.Target, s.TargetPos = t, r.pos(f["target"])
	}
	if n, ok := f["execution"]; ok {
		r.execution(n, s, d)
	}
	for _, k := range []string{"assertions", "assert", "evaluators"} {
		if n, ok := f[k]; ok {
			d.graders = append(d.graders, r.graders(scope{}, n, "suite."+k)...)
		}
	}
	if n, ok := f["input"]; ok {
		d.input = r.messages(scope{}, n, "input", "user")
	}
	if n, ok := f["input_files"]; ok {
		d.inputFiles = r.files(scope{}, n, "input_files")
	}
	return d
}

// suiteOptions reads the suite's workspace, preprocessors, tags and threshold, then the promptfoo
// keys, which may add to the defaults.
func (r *reader) suiteOptions(f map[string]*yaml.Node, s *Suite, d *defaults) {
	if n, ok := f["workspace"]; ok {
		s.Workspace = r.workspace(n)
	}
	if n, ok := f["preprocessors"]; ok {
		s.Preprocessors = r.preprocessors(scope{}, n, "preprocessors")
	}
	if n, ok := f["tags"]; ok {
		s.Tags = r.tags(scope{}, n)
	}
	if n, ok := f["threshold"]; ok {
		s.Threshold = r.threshold(scope{}, n, "threshold")
	}
	if r.format == FormatPromptfoo {
		r.promptfooSuite(f, s, d)
	}
}

// suiteTestNodes finds the suite's test list under its current or deprecated key; a suite with
// none is an error unless its tests come from elsewhere.
func (r *reader) suiteTestNodes(root *yaml.Node, f map[string]*yaml.Node, extra []*yaml.Node) []*yaml.Node {
	switch {
	case f["tests"] != nil:
		return r.testNodes(f["tests"], "tests")
	case f["evalcases"] != nil:
		return r.testNodes(f["evalcases"], "evalcases")
	case f["eval_cases"] != nil:
		r.warnf(keyNode(root, "eval_cases"), "eval_cases is deprecated: use tests")
		return r.testNodes(f["eval_cases"], "eval_cases")
	case extra == nil:
		r.errorf(root, "suite has no tests (add a tests: list)")
	}
	return nil
}

// suiteTests reads each test node into the suite, refusing a repeated id.
func (r *reader) suiteTests(s *Suite, d *defaults, nodes []*yaml.Node) {
	seen := map[string]bool{}
	for _, tn := range nodes {
		t := r.test(tn, s, d)
		if t == nil {
			continue
		}
		if seen[t.ID] {
			r.errorf(tn, "duplicate test id %q", t.ID)
			continue
		}
		seen[t.ID] = true
		s.Tests = append(s.Tests, t)
	}
}

func defaultName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".eval.yaml", ".eval.yml", ".yaml", ".yml", ".jsonl"} {
		if strings.HasSuffix(base, ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	return base
}

func (r *reader) execution(n *yaml.Node, s *Suite, d *defaults) {
	// background_processes is evalgate's own key, and suite-wide: a test cannot loosen it.
	f, ok := r.fields(n, "execution", suiteExecutionKeys...)
	if !ok {
		return
	}
	r.warnUnimplemented(n, "execution")
	if t := r.optStr(scope{}, f, "target", "execution"); t != "" {
		s.Target, s.TargetPos = t, r.pos(f["target"])
	}
	if m, ok := f["targets"]; ok && !isNull(m) {
		s.Matrix = r.matrix(m)
	}
	if w, ok := f["workers"]; ok {
		if v, ok := r.integer(scope{}, w, "execution.workers"); ok {
			if v < 1 || v > 50 {
				r.errorf(w, "execution.workers must be between 1 and 50, not %d", v)
			}
			s.Workers = v
		}
	}
	if t, ok := f["trials"]; ok && !isNull(t) {
		if s.Trials = r.trials(t); s.Trials != nil {
			s.Trials.Pos = r.pos(keyNode(n, "trials"))
		}
	}
	if t, ok := f["threshold"]; ok {
		s.Threshold = r.threshold(scope{}, t, "execution.threshold")
	}
	if b, ok := f["background_processes"]; ok {
		if v, ok := r.str(scope{}, b, "execution.background_processes"); ok {
			if v != "kill" && v != "error" {
				r.errorf(b, "execution.background_processes must be kill or error, not %q", v)
			}
			s.BackgroundProcesses, s.BackgroundPos = v, r.pos(b)
		}
	}
	for _, k := range []string{"assertions", "evaluators"} {
		if g, ok := f[k]; ok {
			d.graders = append(d.graders, r.graders(scope{}, g, "execution."+k)...)
		}
	}
}

func (r *reader) threshold(sc scope, n *yaml.Node, what string) *float64 {
	v, ok := r.num(sc, n, what)
	if !ok {
		return nil
	}
	if v < 0 || v > 1 {
		r.errorf(n, "%s must be between 0 and 1, not %v", what, v)
		return nil
	}
	return &v
}

func (r *reader) tags(sc scope, n *yaml.Node) []string {
	n = resolve(n)
	var out []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if s, ok := r.str(sc, c, "tags[]"); ok {
				out = append(out, s)
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, n.Content[i].Value+"="+resolve(n.Content[i+1]).Value)
		}
	default:
		r.errorf(n, "tags must be a list or a mapping, not %s", kindOf(n))
	}
	return out
}

// finish records the suite's references and targets file.
func (r *reader) finish(s *Suite) {
	if s.TargetsFile == "" {
		s.TargetsFile = FindTargets(filepath.Join(r.dir, filepath.Base(s.Path)), r.opts.Root)
	}
	if s.TargetsFile != "" {
		r.refs[r.rel(s.TargetsFile)] = true
	}
	delete(r.refs, s.Path)
	for ref := range r.refs {
		s.Refs = append(s.Refs, ref)
	}
	sortStrings(s.Refs)
}
