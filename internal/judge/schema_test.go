package judge

import (
	"encoding/json"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
)

// TestJSONSchemaBytes holds the hand-written schema to the bytes json.Marshal makes of the
// maps it replaced, so vendors (and recorded replies keyed by request) see no change.
func TestJSONSchemaBytes(t *testing.T) {
	t.Parallel()
	criteria := func(ids ...string) *suite.Grader {
		g := &suite.Grader{Name: "rubrics", Type: "rubrics"}
		for _, id := range ids {
			g.Criteria = append(g.Criteria, &suite.Criterion{ID: id})
		}
		return g
	}
	likert := &suite.Grader{Name: "l", Type: "rubrics", Likert: &suite.LikertScheme{
		Criteria: []*suite.LikertCriterion{{Name: "clarity"}}, Overall: &suite.LikertCriterion{Name: "overall"}}}
	for _, tt := range []struct {
		name string
		g    *suite.Grader
		mode suite.Mode
	}{
		{"checklist", criteria("correct", "no-regress"), suite.ModeChecklist},
		{"checklist without ids", criteria(), suite.ModeChecklist},
		{"score range", criteria("a"), suite.ModeRange},
		{"likert", likert, suite.ModeLikert},
		{"freeform", criteria("a"), suite.ModeFreeform},
		{"ids that JSON escapes", criteria(`<a&b>`, `quote"d`, "tab\there", "ünïcode"), suite.ModeChecklist},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := jsonSchema(tt.g, tt.mode)
			want := mapSchema(tt.g, tt.mode)
			if string(got.Schema) != string(want.Schema) || got.Name != want.Name || got.Strict != want.Strict {
				t.Errorf("got  %s %s strict=%v\nwant %s %s strict=%v", got.Name, got.Schema, got.Strict, want.Name, want.Schema, want.Strict)
			}
			if !json.Valid(got.Schema) {
				t.Errorf("not JSON: %s", got.Schema)
			}
		})
	}
}

// mapSchema is the schema as it was built before, from maps.
func mapSchema(g *suite.Grader, mode suite.Mode) schemaOut {
	check := map[string]any{"type": "object", "required": []string{"id", "reasoning"},
		"properties": map[string]any{"id": map[string]any{"type": "string"}, "reasoning": map[string]any{"type": "string"}}}
	props := check["properties"].(map[string]any)
	switch mode {
	case suite.ModeFreeform:
		s := map[string]any{"type": "object", "required": []string{"score"}, "properties": map[string]any{
			"score":      map[string]any{"type": "number", "minimum": 0, "maximum": 1},
			"assertions": map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
		}}
		b, _ := json.Marshal(s)
		return schemaOut{"evalgate_freeform", b, false}
	case suite.ModeChecklist:
		props["satisfied"] = map[string]any{"type": "boolean"}
		check["required"] = []string{"id", "satisfied", "reasoning"}
	default:
		props["score"] = map[string]any{"type": "integer"}
		check["required"] = []string{"id", "score", "reasoning"}
	}
	if want := ids(g); len(want) > 0 {
		props["id"] = map[string]any{"type": "string", "enum": want}
	}
	check["additionalProperties"] = false
	s := map[string]any{"type": "object", "required": []string{"checks", "overall_reasoning"}, "additionalProperties": false,
		"properties": map[string]any{
			"checks":            map[string]any{"type": "array", "items": check},
			"overall_reasoning": map[string]any{"type": "string"},
		}}
	b, _ := json.Marshal(s)
	return schemaOut{"evalgate_" + string(mode), b, true}
}

type schemaOut struct {
	Name   string
	Schema []byte
	Strict bool
}
