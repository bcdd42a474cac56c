package potato

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

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
	// Map is written as evalgate.json: calibrate maps Potato's ratings back by it.
	Map *Map
}

// Files and directories of a project directory.
const (
	DataFile  = "data/traces.jsonl"
	outputDir = "annotation_output/"
	MapFile   = "evalgate.json"
)

// Export turns a run into Potato projects; spec may be nil.
func Export(run *result.Run, spec SpecFunc) []*Project {
	var out []*Project
	bySig := map[string]*Project{}
	perSuite := map[string]int{}
	for _, tr := range traces(run) {
		ss, maps := schemes(tr, spec)
		sig, _ := yaml.Marshal(ss)
		key := tr.suite.Name + "\x00" + string(sig)
		p := bySig[key]
		if p == nil {
			perSuite[tr.suite.Name]++
			name := slug(tr.suite.Name)
			if n := perSuite[tr.suite.Name]; n > 1 {
				name = fmt.Sprintf("%s-%d", name, n)
			}
			p = &Project{Name: name, Config: config(tr.suite.Name, ss), Map: &Map{Potato: potatoCommit, Suite: tr.suite.Name, Schemes: maps}}
			bySig[key] = p
			out = append(out, p)
		}
		p.Items = append(p.Items, item(tr))
	}
	return out
}

// config is a project's config.yaml with the keys Potato's validator requires and an instance
// display of the task, the answer, the session and the diff.
func config(suiteName string, ss []*Scheme) *Config {
	return &Config{
		AnnotationTaskName:     "evalgate calibration: " + suiteName,
		TaskDir:                ".",
		DataFiles:              []string{DataFile},
		ItemProperties:         ItemProperties{IDKey: "trace_id", TextKey: "task"},
		OutputAnnotationDir:    strings.TrimSuffix(outputDir, "/"),
		OutputAnnotationFormat: "json",
		InstanceDisplay: InstanceDisplay{Fields: []*DisplayField{
			{Key: "task", Type: "text", Label: "Task"},
			{Key: "answer", Type: "text", Label: "Final answer"},
			{Key: "turns", Type: "coding_trace", Label: "Agent session", DisplayOptions: map[string]any{
				"show_file_tree": true, "collapse_long_outputs": true, "show_step_numbers": true}},
			{Key: "diff", Type: "code", Label: "Workspace diff", DisplayOptions: map[string]any{"language": "diff"}},
		}},
		AnnotationSchemes: ss,
		UserConfig:        UserConfig{AllowAllUsers: true},
	}
}

// schemes mirrors a test's judge graders as rubric_eval schemes, one per grader, on the
// judge's scale, with the map back from Potato's names and positions.
func schemes(tr *trace, spec SpecFunc) ([]*Scheme, map[string]*SchemeMap) {
	var out []*Scheme
	maps := map[string]*SchemeMap{}
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
			Description:    schemeText(g.Mode, lo, hi),
			ScalePoints:    hi - lo + 1,
			ScaleLabels:    scaleLabels(g, sg, lo, hi),
		}
		m := &SchemeMap{Grader: g.Name, Mode: g.Mode, Min: lo, Max: hi, Criteria: map[string]string{}}
		for _, c := range g.Criteria {
			n := tr.names[g][c.ID]
			s.Criteria = append(s.Criteria, &Criterion{Name: n, Description: criterionText(c, label(c.ID, sg), anchors(c.ID, sg))})
			m.Criteria[n] = n
			if suite.Mode(g.Mode) == suite.ModeLikert {
				if m.Weights == nil {
					m.Weights, m.Weighted = map[string]float64{}, tr.names[g][weightedKey]
				}
				m.Weights[n] = c.Weight
			}
		}
		if suite.Mode(g.Mode) == suite.ModeLikert && overall(g, sg) {
			// Potato names its overall row "overall" in every scheme.
			s.ShowOverall = true
			m.Overall = tr.names[g][overallKey]
		}
		out = append(out, s)
		maps[name] = m
	}
	return out, maps
}

// schemeText is a scheme's legend: what the judge rated and on which scale.
func schemeText(mode string, lo, hi int) string {
	switch suite.Mode(mode) {
	case suite.ModeChecklist:
		return "Is each criterion met? (as evalgate's judge decided it: met or not met)"
	case suite.ModeRange:
		return "Score each criterion 0–10, as evalgate's judge did; the ranges are in each row"
	}
	return fmt.Sprintf("Rate each criterion %d–%d, as evalgate's judge did", lo, hi)
}

// scaleLabels are the column heads: Potato numbers the columns 1…n itself, so a scale that
// does not start at 1 shows its own values in the labels.
func scaleLabels(g *result.GraderResult, sg *suite.Grader, lo, hi int) []string {
	if suite.Mode(g.Mode) == suite.ModeChecklist {
		return []string{"Not met", "Met"}
	}
	var texts map[int]string
	if sg != nil && sg.Likert != nil {
		texts = sg.Likert.Labels
	}
	var out []string
	for v := lo; v <= hi; v++ {
		t := texts[v]
		switch {
		case lo == 1 && t != "":
			out = append(out, t)
		case t != "":
			out = append(out, fmt.Sprintf("%d · %s", v, t))
		default:
			out = append(out, strconv.Itoa(v))
		}
	}
	return out
}

// criterionText is a row's description: the criterion, its gate and weight, and its anchors
// or ranges, which rubric_eval has no key for.
func criterionText(c *result.CriterionResult, lbl string, anch map[int]string) string {
	var b strings.Builder
	if lbl != c.ID {
		b.WriteString(lbl + ": ")
	}
	b.WriteString(c.Outcome)
	var gate []string
	if c.Weight != 0 {
		gate = append(gate, "weight "+strconv.FormatFloat(c.Weight, 'g', -1, 64))
	}
	if c.Required {
		gate = append(gate, "required")
	}
	if c.MinScore != nil {
		gate = append(gate, "min score "+strconv.FormatFloat(*c.MinScore, 'g', -1, 64))
	}
	if len(gate) > 0 {
		b.WriteString(" (" + strings.Join(gate, ", ") + ")")
	}
	for _, a := range ranges(anch) {
		b.WriteString(" · " + a)
	}
	return b.String()
}

// ranges folds anchors into runs of equal text: "0–4: wrong", "5: right".
func ranges(anch map[int]string) []string {
	vs := make([]int, 0, len(anch))
	for v := range anch {
		vs = append(vs, v)
	}
	sort.Ints(vs)
	var out []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 && anch[vs[j+1]] == anch[vs[i]] {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%d–%d: %s", vs[i], vs[j], anch[vs[i]]))
		} else {
			out = append(out, fmt.Sprintf("%d: %s", vs[i], anch[vs[i]]))
		}
		i = j + 1
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

// overall reports whether a Likert scheme has a holistic rating: the suite asks for it or the
// judge gave it.
func overall(g *result.GraderResult, sg *suite.Grader) bool {
	if sg != nil && sg.Likert != nil && sg.Likert.Overall != nil {
		return true
	}
	_, ok := detailNumber(g, overallKey)
	return ok
}

// item is a trace's data line: the messages with their tool calls as turns, or, when the
// agent reported no messages, one assistant turn holding every call and the answer.
func item(tr *trace) *Item {
	t := tr.test
	it := &Item{TraceID: tr.id, Task: t.Input, Answer: t.Output.Answer, Criteria: t.Criteria,
		Suite: tr.suite.Name, Test: t.ID, Target: t.Target, Diff: t.Output.FileChanges, Turns: []*Turn{}}
	calls := func(cs []result.ToolCall) []*ToolCall {
		out := []*ToolCall{}
		for _, c := range cs {
			out = append(out, &ToolCall{Tool: c.Tool, Input: c.Input, Output: c.Output, Status: c.Status})
		}
		return out
	}
	hasCalls := false
	for _, m := range t.Output.Messages {
		hasCalls = hasCalls || len(m.ToolCalls) > 0
		it.Turns = append(it.Turns, &Turn{Role: m.Role, Content: m.Content, ToolCalls: calls(m.ToolCalls)})
	}
	if len(it.Turns) == 0 || (!hasCalls && len(t.Output.ToolCalls) > 0) {
		it.Turns = append(it.Turns, &Turn{Role: "assistant", Content: t.Output.Answer, ToolCalls: calls(t.Output.ToolCalls)})
	}
	return it
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

// Write writes each project under dir as <name>/config.yaml, <name>/data/traces.jsonl and
// <name>/evalgate.json, with an empty annotation_output/ directory for Potato's ratings.
func Write(dir string, ps []*Project) error {
	for _, p := range ps {
		root := filepath.Join(dir, p.Name)
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(outputDir)), 0o755); err != nil {
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
		m, err := json.MarshalIndent(p.Map, "", "  ")
		if err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
		if err := os.WriteFile(filepath.Join(root, MapFile), append(m, '\n'), 0o644); err != nil {
			return fmt.Errorf("write potato project %s: %w", p.Name, err)
		}
	}
	return nil
}
