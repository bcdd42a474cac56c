package suite

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

var updateSchema = flag.Bool("update", false, "rewrite the committed schemas under schema/")

// compileSchema compiles the named schema with a standard draft 2020-12 validator: the
// schema must be one an editor's validator accepts, not only one this package can print.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	data, ok := Schema(name)
	if !ok {
		t.Fatalf("no schema %q", name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("schema %s is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(SchemaURL(name), doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaURL(name))
	if err != nil {
		t.Fatalf("schema %s does not compile: %v", name, err)
	}
	return s
}

// yamlInstance reads a YAML document as the JSON value a validator sees.
func yamlInstance(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return jsonValue(v), nil
}

// jsonValue turns yaml.v3's decoded values into JSON's: map keys become strings, integers
// become float64 as encoding/json decodes them.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonValue(e)
		}
		return x
	case map[any]any:
		m := map[string]any{}
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonValue(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonValue(e)
		}
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return v
}

// schemaFiles lists the eval files and targets files under root.
func schemaFiles(t *testing.T, root string) (evals, targets []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		base := strings.ToLower(d.Name())
		switch {
		case base == "targets.yaml" || base == "targets.yml":
			targets = append(targets, p)
		case strings.HasSuffix(base, ".eval.yaml") || strings.HasSuffix(base, ".eval.yml") || base == "eval.yaml" || base == "eval.yml":
			evals = append(evals, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evals, targets
}

// TestSchemaAcceptsExamples validates every vendored AgentV example, the quickstart and what
// evalgate init writes against the schemas: a schema that flags a file the loader reads would
// teach editors to distrust it.
func TestSchemaAcceptsExamples(t *testing.T) {
	t.Parallel()
	schemas := map[string]*jsonschema.Schema{"eval": compileSchema(t, "eval"), "targets": compileSchema(t, "targets")}
	count := map[string]int{}
	for _, root := range []string{"testdata/agentv442", "testdata/agentv-examples", "../../testdata/quickstart", "../../cmd/evalgate/initdata"} {
		evals, targets := schemaFiles(t, root)
		for name, files := range map[string][]string{"eval": evals, "targets": targets} {
			for _, p := range files {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				v, err := yamlInstance(data)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				count[name]++
				if err := schemas[name].Validate(v); err != nil {
					t.Errorf("%s does not validate against the %s schema:\n%v", p, name, err)
				}
			}
		}
	}
	// The walk must have found the examples: a schema test over no files passes anything.
	if count["eval"] < 50 || count["targets"] < 20 {
		t.Fatalf("found %d eval files and %d targets files", count["eval"], count["targets"])
	}
}

// TestSchemaRejects checks that documents the loader refuses fail the schema too.
func TestSchemaRejects(t *testing.T) {
	t.Parallel()
	schemas := map[string]*jsonschema.Schema{"eval": compileSchema(t, "eval"), "targets": compileSchema(t, "targets")}
	const test = "tests:\n  - id: t\n    input: hi\n"
	cases := []struct{ name, schema, doc string }{
		{"no tests", "eval", "name: s\n"},
		{"tests a number", "eval", "tests: 3\n"},
		{"test without id", "eval", "tests:\n  - input: hi\n    criteria: c\n"},
		{"grader without type", "eval", test + "    assertions:\n      - name: x\n"},
		{"contains without value", "eval", test + "    assertions:\n      - type: contains\n"},
		{"negated snake_case regex without value", "eval", test + "    assertions:\n      - type: not_regex\n"},
		{"code grader without command", "eval", test + "    assertions:\n      - type: code_grader\n"},
		{"workers out of range", "eval", "execution:\n  workers: 99\n" + test},
		{"unknown trials strategy", "eval", "execution:\n  trials: {count: 3, strategy: best}\n" + test},
		{"bad isolation", "eval", "workspace:\n  isolation: sometimes\n" + test},
		{"assertions a mapping", "eval", test + "    assertions: {type: contains}\n"},
		{"no targets list", "targets", "name: x\n"},
		{"target without name", "targets", "targets:\n  - provider: mock\n"},
		{"target without provider", "targets", "targets:\n  - name: x\n"},
		{"fallback_targets a mapping", "targets", "targets:\n  - name: x\n    provider: mock\n    fallback_targets: {a: b}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, err := yamlInstance([]byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas[c.schema].Validate(v); err == nil {
				t.Errorf("the %s schema accepted:\n%s", c.schema, c.doc)
			}
		})
	}
	// The same documents made whole pass, so the rejections above are for the named fault.
	for schema, doc := range map[string]string{
		"eval":    test + "    assertions:\n      - type: not_regex\n        value: x\n      - type: code_grader\n        script: [true]\n      - check it",
		"targets": "targets:\n  - name: x\n    provider: mock\n    fallback_targets: [y]\n  - name: y\n    use_target: x\n",
	} {
		v, err := yamlInstance([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas[schema].Validate(v); err != nil {
			t.Errorf("the %s schema refused:\n%s\n%v", schema, doc, err)
		}
	}
}

// TestSchemaHintsHaveKeys keeps the shape table honest: a hint for a key the loader does not
// read would describe a key that is not there.
func TestSchemaHintsHaveKeys(t *testing.T) {
	t.Parallel()
	keys := schemaKeys()
	for kind, hints := range schemaHints {
		known, ok := keys[kind]
		if !ok {
			t.Errorf("hints for %q, which has no key table", kind)
			continue
		}
		for k := range hints {
			if !contains(known, k) {
				t.Errorf("hint for %s.%s, which the loader does not read", kind, k)
			}
		}
	}
}

// TestCommittedSchemas checks that schema/*.schema.json, which releases publish, are the
// generated ones (go test ./internal/suite -run TestCommittedSchemas -update rewrites them).
func TestCommittedSchemas(t *testing.T) {
	t.Parallel()
	for _, name := range SchemaNames {
		want, _ := Schema(name)
		path := filepath.Join("..", "..", "schema", name+".schema.json")
		if *updateSchema {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/suite -run TestCommittedSchemas -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not the generated schema: go test ./internal/suite -run TestCommittedSchemas -update", path)
		}
	}
}

// TestSchemaAcceptsWhatLoads: every eval file in the repository's test data that loads without
// an error validates, so the schema is never stricter than the loader (an interpolated
// ${{ VAR }} where a value from a set is expected, say).
func TestSchemaAcceptsWhatLoads(t *testing.T) {
	t.Parallel()
	s := compileSchema(t, "eval")
	checked := 0
	for _, root := range []string{"../../cmd/evalgate/testdata", "testdata"} {
		evals, _ := schemaFiles(t, root)
		for _, p := range evals {
			if _, ds := Load(p, LoadOptions{}); ds.HasErrors() {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			v, err := yamlInstance(data)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			checked++
			if err := s.Validate(v); err != nil {
				t.Errorf("%s loads but does not validate:\n%v", p, err)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d eval files loaded", checked)
	}
}
