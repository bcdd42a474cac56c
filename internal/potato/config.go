// Package potato connects evalgate runs to Potato, the human-annotation tool: it exports a
// run's traces in Potato's data format with a rubric_eval config mirroring the suite's judge
// criteria, reads Potato's rubric_eval annotation output back, and pairs the humans' ratings
// with the judge's for package calibrate.
//
// A criterion is named by its id; when two graders of one test share an id, both are named
// "grader.id", so the exported config, the annotations and the judge's ratings line up.
package potato

// Config is a Potato annotation project (config.yaml), the subset evalgate writes.
type Config struct {
	AnnotationTaskName string          `yaml:"annotation_task_name"`
	DataFiles          []string        `yaml:"data_files"`
	ItemProperties     ItemProperties  `yaml:"item_properties"`
	Display            Display         `yaml:"display"`
	AnnotationSchemes  []*Scheme       `yaml:"annotation_schemes"`
	AnnotatorConfig    AnnotatorConfig `yaml:"annotator_config"`
	Output             Output          `yaml:"output"`
}

// ItemProperties name the id and text keys of a data item.
type ItemProperties struct {
	IDKey   string `yaml:"id_key"`
	TextKey string `yaml:"text_key"`
}

// Display is how Potato shows an item: a coding trace with its steps and diff.
type Display struct {
	Type               string `yaml:"type"`
	TraceKey           string `yaml:"trace_key"`
	DiffKey            string `yaml:"diff_key"`
	SyntaxHighlighting bool   `yaml:"syntax_highlighting"`
}

// Scheme is one rubric_eval annotation scheme: one evalgate judge grader.
type Scheme struct {
	AnnotationType string       `yaml:"annotation_type"`
	Name           string       `yaml:"name"`
	Description    string       `yaml:"description"`
	Scale          Scale        `yaml:"scale"`
	Criteria       []*Criterion `yaml:"criteria"`
	Overall        *Overall     `yaml:"overall,omitempty"`
	Notes          *Notes       `yaml:"notes,omitempty"`
}

// Scale is a scheme's rating scale.
type Scale struct {
	Min    int            `yaml:"min"`
	Max    int            `yaml:"max"`
	Labels map[int]string `yaml:"labels,omitempty"`
}

// Criterion is one rated row. Required and MinScore are evalgate's gate, carried along so
// raters see which criteria fail a test; Potato ignores keys it does not know.
type Criterion struct {
	Name              string         `yaml:"name"`
	Label             string         `yaml:"label"`
	Description       string         `yaml:"description,omitempty"`
	Weight            float64        `yaml:"weight"`
	Required          bool           `yaml:"required,omitempty"`
	MinScore          *float64       `yaml:"min_score,omitempty"`
	ScaleDescriptions map[int]string `yaml:"scale_descriptions,omitempty"`
}

// Overall is the optional holistic rating.
type Overall struct {
	Enabled           bool           `yaml:"enabled"`
	Label             string         `yaml:"label,omitempty"`
	Description       string         `yaml:"description,omitempty"`
	ScaleDescriptions map[int]string `yaml:"scale_descriptions,omitempty"`
}

// Notes is the optional free-text field.
type Notes struct {
	Enabled bool   `yaml:"enabled"`
	Label   string `yaml:"label"`
}

// AnnotatorConfig are Potato's annotator settings.
type AnnotatorConfig struct {
	AllowBackNavigation      bool `yaml:"allow_back_navigation"`
	ShowCriteriaDescriptions bool `yaml:"show_criteria_descriptions"`
}

// Output is where Potato writes annotations.
type Output struct {
	Path   string `yaml:"path"`
	Format string `yaml:"format"`
}

// Item is one line of a Potato data file: one test's trace.
type Item struct {
	TraceID string `json:"trace_id"`
	// Task is the question as sent to the agent.
	Task         string       `json:"task"`
	Steps        []Step       `json:"steps"`
	FilesChanged []FileChange `json:"files_changed"`
	// Answer is the agent's final answer.
	Answer string `json:"answer"`
	// Criteria is the test's free-text goal, shown to raters as context.
	Criteria string `json:"criteria,omitempty"`
	Suite    string `json:"suite"`
	Test     string `json:"test"`
	Target   string `json:"target,omitempty"`
}

// Step is one tool call of the agent.
type Step struct {
	Step   int    `json:"step"`
	Type   string `json:"type"`
	Tool   string `json:"tool"`
	Input  any    `json:"input,omitempty"`
	Output any    `json:"output,omitempty"`
	Status string `json:"status,omitempty"`
}

// FileChange is one file of the workspace diff.
type FileChange struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}
