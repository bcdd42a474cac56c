package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSchemaCommand prints each schema as the committed copy a release publishes.
func TestSchemaCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"schema"}, "eval.schema.json"},
		{[]string{"schema", "eval"}, "eval.schema.json"},
		{[]string{"schema", "targets"}, "targets.schema.json"},
	} {
		code, out, errOut := invoke(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "schema", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%v does not print schema/%s", c.args, c.file)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%v: not a draft 2020-12 schema (%v)", c.args, err)
		}
	}
	if code, _, errOut := invoke(t, "schema", "config"); code != 2 || errOut != "evalgate: unknown schema \"config\"; schemas: eval, targets\n" {
		t.Errorf("unknown schema: exit %d, %q", code, errOut)
	}
}
