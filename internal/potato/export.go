package potato

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
	"gopkg.in/yaml.v3"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/internal/suite"
)

// SpecFunc returns the suite grader behind a grader result, for what results.json does not
// keep (score-range texts, Likert anchors and labels); nil when the suite is not at hand.
type SpecFunc func(s *result.SuiteResult, t *result.TestResult, grader string) *suite.Grader

// Project is one Potato annotation project: the traces of one suite that share a rubric.
// Potato shows one rubric to every item of a project, so tests with different judge criteria
// go to different projects.
type Project struct {
	// Name is the project's directory: the suite name, with -2, -3 … for further rubrics.
	Name   string
	Config *Config
	Items  []*Item
}

// Data file and output locations inside a project directory.
const (
	DataFile  = "data/traces.jsonl"
	OutputDir = "output/"
)

// Export turns a run into Potato projects; spec may be nil.
func Export(run *result.Run, spec SpecFunc) []*Project {
	var out []*Project
	bySig := map[string]*Project{}
	perSuite := map[string]int{}
	for _, tr := range traces(run) {
		ss := schemes(tr, spec)
		sig, _ := yaml.Marshal(ss)
		key := tr.suite.Name + "\x00" + string(sig)
		p := bySig[key]
		if p == nil {
			perSuite[tr.suite.Name]++
			name := slug(tr.suite.Name)
			if n := perSuite[tr.suite.Name]; n > 1 {
				name = fmt.Sprintf("%s-%d", name, n)
			}
			p = &Project{Name: name, Config: config(tr.suite.Name, ss)}
			bySig[key] = p
			out = append(out, p)
		}
		p.Items = append(p.Items, item(tr))
	}
	return out
}

// config is a project's config.yaml, laid out as Potato's rubric_eval tutorial does.
func config(suiteName string, ss []*Scheme) *Config {
	return &Config{
		AnnotationTaskName: "evalgate calibration: " + suiteName,
		DataFiles:          []string{DataFile},
		ItemProperties:     ItemProperties{IDKey: "trace_id", TextKey: "task"},
		Display:            Display{Type: "coding_trace", TraceKey: "steps", DiffKey: "files_changed", SyntaxHighlighting: true},
		AnnotationSchemes:  ss,
		AnnotatorConfig:    AnnotatorConfig{AllowBackNavigation: true, ShowCriteriaDescriptions: true},
		Output:             Output{Path: OutputDir, Format: "jsonl"},
	}
}

// schemes mirrors a test's judge graders as rubric_eval schemes, one per grader.
func schemes(tr *trace, spec SpecFunc) []*Scheme {
	var out []*Scheme
	used := map[string]int{}
	for _, g := range tr.graders {
		var sg *suite.Grader
		if spec != nil {
			sg = spec(tr.suite, tr.test, g.Name)
		}
		lo, hi := scale(g, sg)
		name := g.Name
		if used[name]++; used[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, used[name])
		}
		s := &Scheme{
			AnnotationType: "rubric_eval",
			Name:           name,
			Description:    fmt.Sprintf("Rate the agent on each criterion, as evalgate's judge did (%s, %d–%d)", g.Mode, lo, hi),
			Scale:          Scale{Min: lo, Max: hi},
			Notes:          &Notes{Enabled: true, Label: "Notes"},
		}
		if suite.Mode(g.Mode) == suite.ModeChecklist {
			s.Scale.Labels = map[int]string{0: "Not met", 1: "Met"}
		}
		if sg != nil && sg.Likert != nil && len(sg.Likert.Labels) > 0 {
			s.Scale.Labels = sg.Likert.Labels
		}
		for _, c := range g.Criteria {
			s.Criteria = append(s.Criteria, &Criterion{
				Name:              tr.names[g][c.ID],
				Label:             label(c.ID, sg),
				Description:       c.Outcome,
				Weight:            c.Weight,
				Required:          c.Required,
				MinScore:          c.MinScore,
				ScaleDescriptions: anchors(c.ID, sg),
			})
		}
		if suite.Mode(g.Mode) == suite.ModeLikert {
			s.Overall = overall(g, sg)
		}
		out = append(out, s)
	}
	return out
}

// label is a criterion's display label: the Likert label when the suite gives one.
func label(id string, sg *suite.Grader) string {
	if sg != nil && sg.Likert != nil {
		for _, c := range sg.Likert.Criteria {
			if c.Name == id && c.Label != "" {
				return c.Label
			}
		}
	}
	return id
}

// anchors are a criterion's scale descriptions: its Likert anchors, or its score ranges
// spread over every score they cover.
func anchors(id string, sg *suite.Grader) map[int]string {
	if sg == nil {
		return nil
	}
	if sg.Likert != nil {
		for _, c := range sg.Likert.Criteria {
			if c.Name == id && len(c.Anchors) > 0 {
				return c.Anchors
			}
		}
		return nil
	}
	for _, c := range sg.Criteria {
		if c.ID != id || len(c.ScoreRanges) == 0 {
			continue
		}
		m := map[int]string{}
		for _, r := range c.ScoreRanges {
			for s := r.Min; s <= r.Max; s++ {
				m[s] = r.Outcome
			}
		}
		return m
	}
	return nil
}

// overall is a Likert scheme's holistic rating, when the suite asks for it or the judge gave it.
func overall(g *result.GraderResult, sg *suite.Grader) *Overall {
	if sg != nil && sg.Likert != nil && sg.Likert.Overall != nil {
		o := sg.Likert.Overall
		return &Overall{Enabled: true, Label: o.Label, Description: o.Description, ScaleDescriptions: o.Anchors}
	}
	if _, ok := detailNumber(g, OverallKey); ok {
		return &Overall{Enabled: true, Label: "Overall Quality"}
	}
	return nil
}

// item is a trace's data line.
func item(tr *trace) *Item {
	t := tr.test
	it := &Item{TraceID: tr.id, Task: t.Input, Answer: t.Output.Answer, Criteria: t.Criteria,
		Suite: tr.suite.Name, Test: t.ID, Target: t.Target, Steps: []Step{}, FilesChanged: files(t.Output.FileChanges)}
	calls := t.Output.ToolCalls
	if len(calls) == 0 {
		for _, m := range t.Output.Messages {
			calls = append(calls, m.ToolCalls...)
		}
	}
	for i, c := range calls {
		it.Steps = append(it.Steps, Step{Step: i + 1, Type: "tool_call", Tool: c.Tool, Input: c.Input, Output: c.Output, Status: c.Status})
	}
	return it
}

// files splits a unified diff into one entry per file; text that is not a diff stays whole.
func files(d string) []FileChange {
	out := []FileChange{}
	if strings.TrimSpace(d) == "" {
		return out
	}
	fds, err := diff.ParseMultiFileDiff([]byte(d))
	if err != nil || len(fds) == 0 {
		return append(out, FileChange{Diff: d})
	}
	for _, fd := range fds {
		name := strings.TrimPrefix(fd.NewName, "b/")
		if fd.NewName == "/dev/null" {
			name = strings.TrimPrefix(fd.OrigName, "a/")
		}
		text, err := diff.PrintFileDiff(fd)
		if err != nil {
			continue
		}
		out = append(out, FileChange{Path: name, Diff: string(text)})
	}
	return out
}

// slug makes a suite name safe as a directory name.
func slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), ".")
	if out == "" {
		return "suite"
	}
	return out
}

// Write writes each project under dir as <name>/config.yaml and <name>/data/traces.jsonl,
// with an empty output/ directory for Potato's annotations.
func Write(dir string, ps []*Project) error {
	for _, p := range ps {
		root := filepath.Join(dir, p.Name)
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(OutputDir)), 0o755); err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
		var cfg bytes.Buffer
		enc := yaml.NewEncoder(&cfg)
		enc.SetIndent(2) // as Potato's own examples
		if err := enc.Encode(p.Config); err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
		if err := os.WriteFile(filepath.Join(root, "config.yaml"), cfg.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
		var data bytes.Buffer
		jenc := json.NewEncoder(&data)
		jenc.SetEscapeHTML(false)
		for _, it := range p.Items {
			if err := jenc.Encode(it); err != nil {
				return fmt.Errorf("write potato project %s: %w", p.Name, err)
			}
		}
		dataPath := filepath.Join(root, filepath.FromSlash(DataFile))
		if err := os.MkdirAll(filepath.Dir(dataPath), 0o755); err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
		if err := os.WriteFile(dataPath, data.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
	}
	return nil
}
