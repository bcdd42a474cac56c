package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/suite"
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

// TestSchemaURLs keeps the $schema lines the README shows and init writes pointing at the
// assets a release publishes.
func TestSchemaURLs(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# yaml-language-server: $schema=" + suite.SchemaURL("eval"); !strings.Contains(string(readme), want) {
		t.Errorf("README lacks %q", want)
	}
	for tmpl, name := range map[string]string{"initdata/hello.eval.yaml": "eval", "initdata/targets.yaml": "targets"} {
		data, err := initdata.ReadFile(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if want := "# yaml-language-server: $schema=" + suite.SchemaURL(name) + "\n"; !strings.HasPrefix(string(data), want) {
			t.Errorf("%s does not start with %q", tmpl, want)
		}
	}
}
