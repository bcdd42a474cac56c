// Package suite is evalgate's model of an eval suite and the readers that build it from the
// formats users write: AgentV 4.x (primary), the legacy AgentV "evalcases" schema, the
// promptfoo-aligned AgentV 5.x schema and Potato rubric_eval schemes. Every reader produces the
// same model, so nothing downstream knows which format a suite was written in.
//
// The model is plain data. Defaults (weights, required flags, thresholds) are resolved by the
// readers so that downstream packages never re-apply them; the raw file is kept only as
// positions, for diagnostics and annotations.
package suite

import (
	"fmt"
	"strings"
)

// Format names the dialect a suite file was written in.
type Format string

// The formats evalgate reads.
const (
	FormatAgentV    Format = "agentv"    // AgentV 4.x: tests, criteria, input, assertions
	FormatLegacy    Format = "legacy"    // AgentV 2025: evalcases, input_messages, execution.evaluators
	FormatPromptfoo Format = "promptfoo" // AgentV 5.x-next: assert, llm-rubric value, default_test
	FormatJSONL     Format = "jsonl"     // one AgentV test per line, with an optional YAML sidecar
)

// Pos is a position in a source file; Line and Col are 1-based, 0 when unknown.
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// String renders the position as file:line:col, dropping unknown parts.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Suite is one eval file (or one JSONL file with its sidecar) after loading.
type Suite struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Path        string `json:"path"` // the eval file as given (relative to the repo when possible)
	// Dir is the eval file's directory, absolute. Path is relative to the repository root,
	// which need not be the process's working directory; things that run relative to the eval
	// file (code graders' default cwd) use Dir. Machine-specific, so kept out of JSON.
	Dir    string `json:"-"`
	Format Format `json:"format"`
	Tests  []*Test

	// Target is the suite's default target name (execution.target, root target, or "default").
	Target string
	// TargetPos is where Target was set (zero for the "default" fallback).
	TargetPos Pos `json:"-"`
	// Threshold is execution.threshold: the pass threshold for the suite's tests, nil = default.
	Threshold *float64
	// Trials is execution.trials, nil = each test runs once.
	Trials *Trials `json:"trials,omitempty"`
	// Workers is execution.workers, 0 = not set.
	Workers int
	// BackgroundProcesses is execution.background_processes: "kill" (the default: an agent's
	// leftover processes are killed and noted on the test) or "error" (the test errors).
	BackgroundProcesses string
	// BackgroundPos is where BackgroundProcesses was set.
	BackgroundPos Pos `json:"-"`
	// Workspace is the suite-level workspace, nil when the suite runs without one.
	Workspace *Workspace
	// TargetsFile is the targets.yaml found by walking up from the eval file ("" = none).
	TargetsFile string
	// Refs are every file the suite reads besides itself (test files, input_files, workspace
	// templates, grader scripts and prompts, targets.yaml): a change to any of them selects the
	// suite on a pull request. Paths are cleaned and relative to the same root as Path.
	Refs []string
	// Tags are the suite's tags (a list, or the keys=values of a tag map).
	Tags []string
	// Matrix is execution.targets: every test runs once per entry (nil = one run, on Target).
	Matrix []*MatrixTarget
	// Preprocessors are the suite's content preprocessors, inherited by every judge grader.
	Preprocessors []*Preprocessor
}

// MatrixTarget is one execution.targets entry: a target name, optionally an alias of another
// target (use_target) when targets.yaml defines no target by that name.
type MatrixTarget struct {
	Name      string
	UseTarget string
	Pos       Pos
}

// Preprocessor converts a file of one media type in a target's answer into text for the judge:
// the command gets {"path", "original_path", "media_type"} on stdin and prints the text.
type Preprocessor struct {
	// Type is the media type as written ("xlsx" or a MIME type).
	Type string
	// Command is the argv; the last element is the script, made absolute.
	Command []string
	Pos     Pos
}

// Dependency policies (on_dependency_failure): what a test does when a test it depends on
// could not produce a result.
const (
	OnDependencySkip = "skip"
	OnDependencyFail = "fail"
	OnDependencyRun  = "run"
)

// Dependency is one depends_on entry.
type Dependency struct {
	ID  string
	Pos Pos
}

// Test is one test case.
type Test struct {
	ID string `json:"id"`
	// Criteria is the test's free-text goal (criteria / expected_outcome).
	Criteria string
	// Input is the conversation sent to the target; suite-level input is already prepended.
	Input []Message
	// InputFiles are files attached to the input, resolved relative to the eval file.
	InputFiles []string
	// ExpectedOutput is the reference conversation; its last message is the reference answer.
	ExpectedOutput []Message
	// Graders run in order: the test's own, then the suite defaults (unless skip_defaults).
	Graders []*Grader
	// Threshold overrides the suite threshold for this test.
	Threshold *float64
	// Target overrides the suite target for this test; for one run of a matrix it is the
	// matrix entry's name (see Suite.Runs).
	Target string
	// Workspace is the test's workspace merged over the suite's (as AgentV merges them); nil
	// when the test writes none and runs in the suite's.
	Workspace *Workspace
	Vars      map[string]any
	Metadata  map[string]any
	Tags      []string
	// Conversation is set for mode: conversation: Input is then the opening context (system
	// prompt) and Graders grade the whole transcript after the last turn.
	Conversation *Conversation
	Pos          Pos

	// Targets is the test's execution.targets: the suite matrix entries it runs on (nil = all).
	Targets []string
	// DependsOn are the tests of the suite that run before this one (depends_on).
	DependsOn []Dependency
	// OnDependencyFailure is skip (default), fail or run.
	OnDependencyFailure string
	// targetsPos is where Targets is written, for diagnostics.
	targetsPos Pos
}

// Message is one conversation turn.
type Message struct {
	Role string `json:"role"`
	// Content is the text content; structured (non-text) content is rendered as JSON.
	Content string `json:"content"`
	// Files are file content blocks, as paths resolved relative to the eval file.
	Files []string `json:"files,omitempty"`
	// ToolCalls are the tool calls an expected assistant message carries.
	ToolCalls []map[string]any `json:"tool_calls,omitempty"`
	// Blocks are the content list as written (text, file and image blocks in order), nil
	// when the content was a string. Content and Files are derived from them.
	Blocks []Block `json:"-"`
}

// Workspace is a scratch directory an agent target runs in.
type Workspace struct {
	// Template is a directory copied into a fresh temp dir for each test (or once, when shared).
	Template string
	// Isolation is "per_test" (default) or "shared".
	Isolation string
	Hooks     WorkspaceHooks
	// Repos are the git repositories cloned into the workspace, in file order.
	Repos []*Repo
	// Mode is workspace.mode as written ("" when not set): pooled, temp or static. A path
	// without a mode is static.
	Mode string
	// Path is the directory a static workspace uses in place (absolute; "" unless static).
	Path string
	// Env are the tools the suite needs, checked before its first test.
	Env WorkspaceEnv
	Pos Pos

	// set is where each key was written (value positions): a test's workspace inherits the
	// suite's value of every key it does not write (AgentV's case ?? suite).
	set map[string]Pos
	// dir is the directory its relative paths resolve against; fromFile is whether it was
	// read from a workspace file (AgentV's workspaceFileDir), whose directory hooks default to.
	dir      string
	fromFile bool
}

// Repo is one workspace.repos entry: a repository cloned into the workspace at Path and
// checked out (detached) at Commit's Ancestor-th parent.
type Repo struct {
	// Path is where the clone goes, slash-separated and relative to the workspace.
	Path string
	// Repo is the repository as written: a URL, an org/name GitHub shorthand or a local path.
	Repo string
	// URL is what git clones: Repo's URL, https://github.com/org/name.git for a shorthand, or
	// the absolute path of a local repository.
	URL string
	// Commit is the commit, branch or tag to check out (commit or base_commit); "" is the
	// remote's default branch.
	Commit string
	// Ancestor walks this many first parents back from Commit.
	Ancestor int
	// Sparse are the directories of a cone-mode sparse checkout (none = everything).
	Sparse []string
	Pos    Pos
}

// WorkspaceEnv is workspace.env: what must be installed for the suite to run.
type WorkspaceEnv struct {
	// RequiredCommands must be found in PATH.
	RequiredCommands []string
	// RequiredPythonModules must be importable by python3.
	RequiredPythonModules []string
	Pos                   Pos
}

// WorkspaceHooks are commands run around tests in the workspace.
type WorkspaceHooks struct {
	// Disabled is hooks.enabled: false: no hook command and no reset runs.
	Disabled                                   bool
	BeforeAll, BeforeEach, AfterEach, AfterAll *Hook
	// enabledSet is whether enabled is written: a test's hooks inherit the suite's otherwise.
	enabledSet bool
}

// Hook is one workspace hook: a command, a reset, or both (the reset first).
type Hook struct {
	Command   []string // argv; a string command is ["sh", "-c", cmd]; nil for a reset alone
	TimeoutMS int
	// Cwd is the hook's working directory as written; relative to Dir.
	Cwd string
	// Dir is the directory of the file the hook is written in (the eval file or an external
	// workspace file): the default working directory, as in AgentV.
	Dir string
	// Reset is "", "none", "fast" or "strict" (before_each and after_each only): fast puts the
	// workspace's files back as they were, keeping git-ignored ones; strict removes those too.
	Reset string
	Pos   Pos
	// set holds the keys written (command, timeout_ms, cwd, reset): a test's hook overrides
	// only those of the suite's hook for the same stage.
	set map[string]bool
}

// Grader is one grader (assertion, evaluator) attached to a test.
type Grader struct {
	// Name is the grader's name in reports (explicit, or derived as AgentV does).
	Name string
	// Type is the normalised type: lower case, "_" → "-", aliases resolved (rubric → rubrics,
	// llm-rubric → rubrics when it has structured criteria, code_judge → code-grader,
	// llm_judge → llm-grader, script → code-grader, rubric_eval → likert).
	Type string
	// Weight is the grader's weight in the test score (default 1; the bare-string rubric group
	// weighs the number of strings).
	Weight float64
	// Required makes the grader a gate: below MinScore it fails the test.
	Required bool
	// MinScore is the gate's minimum (0–1) when Required; nil means the test's pass threshold.
	MinScore *float64
	// Negate flips the score (1 − s) and the verdict.
	Negate bool

	// Criteria are the rubric items of a rubrics / llm-grader grader.
	Criteria []*Criterion
	// Likert is set for a Potato rubric_eval scheme (Type "likert").
	Likert *LikertScheme

	// Value is the deterministic graders' operand (string, or []string for -any/-all).
	Value  any
	Flags  string // regex flags
	Prompt string // llm-grader custom prompt text (file:// already read)
	// PromptIsTemplate is true when Prompt contains {{ var }} placeholders: it replaces the
	// whole user prompt instead of filling the criteria section.
	PromptIsTemplate bool
	// PromptCommand is an executable prompt template (prompt: {command: [...]}): run per test,
	// its stdout is the whole judge prompt. The last element is the script, made absolute.
	// Its config: is the grader's Config.
	PromptCommand []string
	// Custom is the module of a custom assertion type (.agentv/assertions/<type>.ts and the
	// like), absolute; Type is then the custom type's name.
	Custom string
	// Command is a code-grader argv (a string command is ["sh", "-c", cmd]).
	Command []string
	Cwd     string
	// Target names a grader target overriding the judge for this grader.
	Target string
	// Samples asks the judge k times and reports agreement (0 or 1 = once).
	Samples     int
	Temperature *float64
	// Config is the grader's free configuration: config: plus, for code and llm graders, every
	// key that is not one of their fields (AgentV's "extra keys → config"; config: wins).
	Config map[string]any
	// Params holds the type-specific fields of the remaining grader types (code-grader
	// timeouts and target, tool-trajectory, field-accuracy, latency, cost, token-usage,
	// execution-metrics, skill-trigger, composite aggregator), decoded from YAML into plain Go
	// values, for the grader package to interpret. The loader adds minimums_order ([]string)
	// to a tool-trajectory's: the YAML order of minimums, which the decoded map loses.
	Params map[string]any
	// Members are a composite grader's members.
	Members []*Grader
	// Preprocessors turn file blocks of the answer into text for a judge grader: the suite's,
	// overridden by type by the grader's own.
	Preprocessors []*Preprocessor

	Pos Pos
}

// Criterion is one rubric item.
type Criterion struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome,omitempty"`
	Weight  float64
	// Required gates the test: a checklist criterion must be satisfied; a score-range criterion
	// must reach MinScore (or the pass threshold when MinScore is nil).
	Required bool
	// MinScore is the gate for a score-range criterion (0–1; required_min_score n → n/10).
	MinScore *float64
	// Operator is "correctness", "contradiction" or "".
	Operator string
	// ScoreRanges, when non-empty, put the whole grader in score-range mode.
	ScoreRanges []ScoreRange
	Pos         Pos
}

// ScoreRange is an inclusive band of judge scores (integers 0–10) and what it means.
type ScoreRange struct {
	Min     int    `json:"min"`
	Max     int    `json:"max"`
	Outcome string `json:"outcome"`
}

// LikertScheme is a Potato rubric_eval scheme: anchored criteria on one integer scale.
type LikertScheme struct {
	Name     string
	Min, Max int
	Labels   map[int]string
	Criteria []*LikertCriterion
	// Overall, when set, asks the judge for a holistic rating too (reported, not weighted).
	Overall *LikertCriterion
}

// LikertCriterion is one row of a Likert rubric.
type LikertCriterion struct {
	Name        string
	Label       string
	Description string
	Weight      float64
	// Anchors describe each scale point (scale_descriptions).
	Anchors map[int]string
	Pos     Pos
}

// Mode is how a rubric grader scores its criteria.
type Mode string

// Rubric modes.
const (
	ModeChecklist Mode = "checklist"
	ModeRange     Mode = "score_range"
	ModeLikert    Mode = "likert"
	ModeFreeform  Mode = "freeform"
)

// RubricMode reports how a rubric grader scores: any criterion with score ranges puts the whole
// grader in range mode (AgentV's rule); a Likert scheme is Likert; no criteria is freeform.
func (g *Grader) RubricMode() Mode {
	if g.Likert != nil {
		return ModeLikert
	}
	if len(g.Criteria) == 0 {
		return ModeFreeform
	}
	for _, c := range g.Criteria {
		if len(c.ScoreRanges) > 0 {
			return ModeRange
		}
	}
	return ModeChecklist
}

// IsJudge reports whether the grader needs an LLM judge: a judge grader, or a composite whose
// llm-grader aggregator asks one for the final score.
func (g *Grader) IsJudge() bool {
	switch g.Type {
	case "rubrics", "llm-grader", "likert":
		return true
	case "composite":
		typ, _ := g.Params["aggregator"].(string)
		if agg, ok := g.Params["aggregator"].(map[string]any); ok {
			typ, _ = agg["type"].(string)
		}
		return strings.ReplaceAll(typ, "_", "-") == "llm-grader"
	}
	return false
}

// Reference returns the reference answer sent to the judge: the last expected message.
func (t *Test) Reference() string {
	if len(t.ExpectedOutput) == 0 {
		return ""
	}
	return t.ExpectedOutput[len(t.ExpectedOutput)-1].Text()
}
