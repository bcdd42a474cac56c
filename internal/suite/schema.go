package suite

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/evalgate/evalgate/internal/providers"
)

// The JSON Schemas (draft 2020-12) of eval files and targets.yaml, for editor completion
// (`# yaml-language-server: $schema=…`). They are built from the key tables the loader checks
// with (suiteKeys, testKeys, commonGraderKeys, graderTypes, targetBaseKeys, the providers
// table …), so a key the loader learns is in the schema the same day. The loader warns about
// an unknown key and refuses only a typo of a known one, which a schema cannot tell apart:
// the schemas list every key but leave other keys allowed, and refuse what the loader refuses
// for sure (a value of the wrong shape, a missing required field, a value outside its set).

// SchemaURL is where a release publishes the schema named name ("eval" or "targets").
func SchemaURL(name string) string {
	return "https://github.com/evalgate/evalgate/releases/latest/download/" + name + ".schema.json"
}

// SchemaNames are the schemas Schema knows.
var SchemaNames = []string{"eval", "targets"}

// Schema returns the JSON Schema named name ("eval" or "targets"), indented, with a final
// newline; ok is false for another name.
func Schema(name string) (data []byte, ok bool) {
	var s obj
	switch name {
	case "eval":
		s = evalSchema()
	case "targets":
		s = targetsSchema()
	default:
		return nil, false
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil { // the schema is maps, slices and strings: it always encodes
		return nil, false
	}
	return append(data, '\n'), true
}

type obj = map[string]any

// Shapes of values as the loader reads them: text is any scalar (str takes numbers and
// booleans as written), a number may be a ${{ VAR }} interpolation.
var (
	text        = obj{"type": []string{"string", "number", "boolean", "null"}}
	interp      = obj{"type": "string", "pattern": `^\s*\$\{\{.*\}\}\s*$`}
	number      = obj{"anyOf": []any{obj{"type": "number"}, interp}}
	fraction    = obj{"anyOf": []any{obj{"type": "number", "minimum": 0, "maximum": 1}, interp}}
	boolean     = obj{"type": "boolean"}
	mapping     = obj{"type": "object"}
	list        = obj{"type": "array"}
	textList    = obj{"type": "array", "items": text}
	command     = obj{"anyOf": []any{obj{"type": "string"}, obj{"type": "array", "minItems": 1, "items": text}}}
	graderList  = obj{"type": "array", "items": ref("assertion")}
	inputValue  = obj{"type": []string{"string", "object", "array"}}
	testsValue  = obj{"anyOf": []any{obj{"type": "string"}, obj{"type": "array", "items": obj{"anyOf": []any{obj{"type": "string"}, ref("test")}}}}}
	workspaceOr = obj{"anyOf": []any{obj{"type": "string"}, ref("workspace")}}
	required    = obj{"type": []string{"boolean", "number"}}
	intRange    = func(lo, hi int) obj {
		return obj{"anyOf": []any{obj{"type": "integer", "minimum": lo, "maximum": hi}, interp}}
	}
)

func ref(def string) obj { return obj{"$ref": "#/$defs/" + def} }

func enum(values ...string) obj { return obj{"enum": values} }

// choice is one of values, or a ${{ VAR }} the loader interpolates before it checks the value.
func choice(values ...string) obj { return obj{"anyOf": []any{enum(values...), interp}} }

// schemaHints are the shapes of the keys whose shape the loader checks, per mapping. A key
// without a hint takes any value; every hinted key is in its mapping's key table (a test checks).
var schemaHints = map[string]obj{
	"suite": {"name": text, "description": text, "tags": obj{"type": []string{"array", "object"}}, "tests": testsValue,
		"evalcases": testsValue, "eval_cases": testsValue, "execution": ref("execution"), "assertions": graderList,
		"assert": graderList, "evaluators": graderList, "workspace": workspaceOr, "input": inputValue,
		"input_files": textList, "metadata": mapping, "threshold": fraction, "target": text},
	"execution": {"target": text, "workers": intRange(1, 50), "trials": ref("trials"), "threshold": fraction,
		"background_processes": choice("kill", "error"), "assertions": graderList, "evaluators": graderList},
	"test": {"id": text, "description": text, "input": inputValue, "input_messages": list, "input_files": textList,
		"assertions": graderList, "assert": graderList, "evaluators": graderList, "execution": ref("test_execution"),
		"workspace": workspaceOr, "vars": mapping, "metadata": mapping, "threshold": fraction,
		"mode": choice(ModeConversation), "turns": obj{"type": "array", "items": ref("turn")},
		"on_turn_failure": choice(OnTurnContinue, OnTurnStop), "depends_on": obj{"type": []string{"string", "array"}}},
	"test_execution": {"target": text, "workers": intRange(1, 50), "trials": ref("trials"), "threshold": fraction,
		"assertions": graderList, "evaluators": graderList},
	"turn": {"assertions": graderList},
	"grader": {"type": obj{"anyOf": []any{enum(graderTypeNames()...), obj{"type": "string"}}}, "name": text,
		"metric": text, "weight": number, "required": required, "min_score": number, "negate": boolean,
		"command": command, "script": command, "cwd": text, "assertions": graderList, "evaluators": graderList,
		"aggregator": ref("aggregator"), "config": mapping, "threshold": number},
	"criterion": {"id": text, "outcome": text, "weight": number, "required": required, "min_score": number},
	"workspace": {"template": text, "isolation": choice("per_test", "shared"), "hooks": mapping,
		"repos": list, "mode": choice("pooled", "temp", "static"), "env": mapping},
	"trials": {"count": intRange(1, MaxTrials), "max": intRange(1, MaxTrials),
		"strategy":       choice(TrialsPassAtK, TrialsMean, TrialsConfidenceInterval),
		"cost_limit_usd": obj{"anyOf": []any{obj{"type": "number", "exclusiveMinimum": 0}, interp}}},
	"aggregator": {"type": text, "weights": mapping, "threshold": number},
	"target": {"name": text, "provider": obj{"anyOf": []any{enum(providerNames()...), obj{"type": "string"}}},
		"use_target": text, "grader_target": text, "judge_target": text, "fallback_targets": textList,
		"workers": obj{"anyOf": []any{obj{"type": "integer", "minimum": 1}, interp}}},
}

// schemaKeys are the key tables of the mappings the schemas describe.
func schemaKeys() map[string][]string {
	return map[string][]string{
		"suite": suiteKeys, "execution": suiteExecutionKeys, "test": testKeys, "test_execution": executionKeys,
		"turn": turnKeys, "grader": graderKeyNames(), "criterion": criterionKeys,
		"workspace": append(append([]string(nil), workspaceKeys...), sortedKeys(removedWorkspaceKeys)...),
		"trials":    trialsKeys, "aggregator": aggregatorKeys, "target": targetKeyNames(),
	}
}

// object is the schema of a mapping with the given keys, each shaped by its hint.
func object(kind string, keys []string) obj {
	props := obj{}
	for _, k := range keys {
		if h, ok := schemaHints[kind][k]; ok {
			props[k] = h
		} else {
			props[k] = obj{}
		}
	}
	return obj{"type": "object", "properties": props}
}

func evalSchema() obj {
	keys := schemaKeys()
	defs := obj{}
	for _, k := range []string{"execution", "test_execution", "turn", "criterion", "workspace", "trials", "aggregator"} {
		defs[k] = object(k, keys[k])
	}
	test := object("test", keys["test"])
	test["required"] = []string{"id"}
	defs["test"] = test
	grader := object("grader", keys["grader"])
	grader["required"] = []string{"type"}
	grader["allOf"] = graderRequirements()
	defs["grader"] = grader
	defs["assertion"] = obj{"anyOf": []any{
		obj{"type": "string", "minLength": 1},
		obj{"type": "object", "required": []string{"include"}, "properties": obj{"include": obj{"type": "string"}}},
		ref("grader"),
	}}
	s := object("suite", keys["suite"])
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = SchemaURL("eval")
	s["title"] = "evalgate eval file (AgentV eval YAML)"
	s["$defs"] = defs
	// A suite's tests come from one of these keys (or a promptfoo scenarios list).
	s["anyOf"] = []any{obj{"required": []string{"tests"}}, obj{"required": []string{"evalcases"}},
		obj{"required": []string{"eval_cases"}}, obj{"required": []string{"scenarios"}}}
	return s
}

// graderRequirements says, per grader type, which fields it needs (graderTypes), under every
// spelling normaliseType maps onto the type.
func graderRequirements() []any {
	var out []any
	for _, typ := range sortedTypes() {
		need := graderTypes[typ]
		if len(need) == 0 {
			continue
		}
		var then obj
		if typ == "code-grader" { // script is command's older name
			then = obj{"anyOf": []any{obj{"required": []string{"command"}}, obj{"required": []string{"script"}}}}
		} else {
			then = obj{"required": need}
		}
		out = append(out, obj{
			"if":   obj{"required": []string{"type"}, "properties": obj{"type": enum(typeSpellings(typ)...)}},
			"then": then,
		})
	}
	return out
}

func sortedTypes() []string {
	var types []string
	for t := range graderTypes {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// typeSpellings are the lower-case spellings of typ the loader accepts: its name and aliases,
// in kebab and snake case, with and without the not- prefix.
func typeSpellings(typ string) []string {
	names := []string{typ}
	for a, t := range typeAliases {
		if t == typ {
			names = append(names, a)
		}
	}
	var out []string
	for _, n := range names {
		for _, v := range []string{n, "not-" + n} {
			out = append(out, v, strings.ReplaceAll(v, "-", "_"))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// graderTypeNames are the built-in grader types and their aliases, for completion.
func graderTypeNames() []string {
	names := sortedTypes()
	for a := range typeAliases {
		names = append(names, a)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// graderKeyNames are every key some grader type reads.
func graderKeyNames() []string {
	keys := append([]string(nil), commonGraderKeys...)
	for _, own := range ownKeys {
		keys = append(keys, own...)
	}
	sort.Strings(keys)
	return slices.Compact(keys)
}

// targetKeyNames are every key some targets.yaml entry may have.
func targetKeyNames() []string {
	keys := append([]string(nil), targetBaseKeys...)
	for _, p := range providers.All() {
		keys = append(keys, p.Keys...)
	}
	sort.Strings(keys)
	return slices.Compact(keys)
}

// providerNames are the providers' names and aliases, for completion.
func providerNames() []string {
	var names []string
	for _, p := range providers.All() {
		names = append(names, p.Name)
		names = append(names, p.Aliases...)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

func targetsSchema() obj {
	target := object("target", targetKeyNames())
	props := target["properties"].(obj)
	for k, sub := range nestedTargetKeys {
		if _, ok := props[k]; ok {
			props[k] = object("", sub)
		}
	}
	target["required"] = []string{"name"}
	// An entry names its provider, or delegates to another entry.
	target["anyOf"] = []any{obj{"required": []string{"provider"}}, obj{"required": []string{"use_target"}}}
	return obj{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"$id":        SchemaURL("targets"),
		"title":      "evalgate targets.yaml (AgentV targets)",
		"type":       "object",
		"required":   []string{"targets"},
		"properties": obj{"$schema": obj{"type": "string"}, "targets": obj{"type": "array", "items": ref("target")}},
		"$defs":      obj{"target": target},
	}
}
