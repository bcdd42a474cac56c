// Package potato connects evalgate runs to Potato, the human-annotation tool: it exports a
// run's traces as Potato projects (config.yaml, data, an instance display and one rubric_eval
// scheme per judge grader), reads back the ratings Potato stores (user_state.json, its JSONL
// export, or the tutorial's rubric rows) and pairs the humans' ratings with the judge's for
// package calibrate.
//
// A criterion is named by its id; when two graders of one test share an id, both are named
// "grader.id", so the exported config, the annotations and the judge's ratings line up.
//
// The layout follows Potato's own code at potatoCommit: config_module.py's required keys,
// the rubric_eval schema (scale_points, scale_labels, criteria, show_overall) and the
// coding_trace display (turns holding tool_calls).
package potato

// potatoCommit is the davidjurgens/potato commit whose config validator, instance loader,
// rubric_eval layout, user-state code and export loader the exported projects were checked
// against (cmd/evalgate/testdata/potato/generate.py).
const potatoCommit = "f5ed5d481516ad01cb1ec8041ce64b71db19d15f"

// Config is a Potato annotation project (config.yaml), the subset evalgate writes.
type Config struct {
	AnnotationTaskName     string          `yaml:"annotation_task_name"`
	TaskDir                string          `yaml:"task_dir"`
	DataFiles              []string        `yaml:"data_files"`
	ItemProperties         ItemProperties  `yaml:"item_properties"`
	OutputAnnotationDir    string          `yaml:"output_annotation_dir"`
	OutputAnnotationFormat string          `yaml:"output_annotation_format"`
	InstanceDisplay        InstanceDisplay `yaml:"instance_display"`
	AnnotationSchemes      []*Scheme       `yaml:"annotation_schemes"`
	UserConfig             UserConfig      `yaml:"user_config"`
}

// ItemProperties name the id and text keys of a data item.
type ItemProperties struct {
	IDKey   string `yaml:"id_key"`
	TextKey string `yaml:"text_key"`
}

// InstanceDisplay is what Potato shows of an item: one field per item key.
type InstanceDisplay struct {
	Fields []*DisplayField `yaml:"fields"`
}

// DisplayField is one shown item key and the display type that renders it.
type DisplayField struct {
	Key            string         `yaml:"key"`
	Type           string         `yaml:"type"`
	Label          string         `yaml:"label"`
	DisplayOptions map[string]any `yaml:"display_options,omitempty"`
}

// Scheme is one rubric_eval annotation scheme: one evalgate judge grader. Potato stores a
// rating as the 1-based position of the chosen column ("1" … scale_points); Map turns it back
// into the judge's value.
type Scheme struct {
	AnnotationType string       `yaml:"annotation_type"`
	Name           string       `yaml:"name"`
	Description    string       `yaml:"description"`
	ScalePoints    int          `yaml:"scale_points"`
	ScaleLabels    []string     `yaml:"scale_labels"`
	Criteria       []*Criterion `yaml:"criteria"`
	ShowOverall    bool         `yaml:"show_overall,omitempty"`
}

// Criterion is one rated row; Potato shows its name and description.
type Criterion struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
}

// UserConfig lets any rater log in, as Potato's examples do.
type UserConfig struct {
	AllowAllUsers bool `yaml:"allow_all_users"`
}

// Item is one line of a Potato data file: one test's trace.
type Item struct {
	TraceID string `json:"trace_id"`
	// Task is the question as sent to the agent.
	Task string `json:"task"`
	// Answer is the agent's final answer.
	Answer string `json:"answer"`
	// Turns are the agent's session as coding_trace reads it.
	Turns []*Turn `json:"turns"`
	// Diff is the workspace diff, shown as code.
	Diff string `json:"diff"`
	// Criteria is the test's free-text goal, shown to raters as context.
	Criteria string `json:"criteria,omitempty"`
	Suite    string `json:"suite"`
	Test     string `json:"test"`
	Target   string `json:"target,omitempty"`
}

// Turn is one message of the session with the tool calls made in it.
type Turn struct {
	Role      string      `json:"role"`
	Content   string      `json:"content"`
	ToolCalls []*ToolCall `json:"tool_calls"`
}

// ToolCall is one tool call as coding_trace renders it.
type ToolCall struct {
	Tool   string `json:"tool"`
	Input  any    `json:"input,omitempty"`
	Output any    `json:"output,omitempty"`
	Status string `json:"status,omitempty"`
}

// Map is the project's evalgate.json: how Potato's scheme and criterion names and stored
// positions map back to the suite's criteria and the judge's scale.
type Map struct {
	Potato  string                `json:"potato_commit"`
	Suite   string                `json:"suite"`
	Schemes map[string]*SchemeMap `json:"schemes"`
}

// SchemeMap maps one rubric_eval scheme back to its grader.
type SchemeMap struct {
	Grader string `json:"grader"`
	Mode   string `json:"mode"`
	// Min and Max are the judge's scale; Potato's position p is the value Min+p-1.
	Min int `json:"min"`
	Max int `json:"max"`
	// Criteria maps Potato's criterion name to the name calibrate and pair use.
	Criteria map[string]string `json:"criteria"`
	// Overall is the name of Potato's "overall" row (show_overall), empty when not shown.
	Overall string `json:"overall,omitempty"`
	// Weights are a Likert grader's weights by Potato name: rubric_eval has no weights, so
	// calibrate computes the humans' weighted score, named Weighted, from them.
	Weights  map[string]float64 `json:"weights,omitempty"`
	Weighted string             `json:"weighted,omitempty"`
}
