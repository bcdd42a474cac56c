package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadPolicy loads body as name under policy, with DATABASE_URL and friends set.
func loadPolicy(t *testing.T, name, body string, policy *EnvPolicy) (*Suite, *TargetsFile, Diagnostics) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"DATABASE_URL": "postgres://app:hunter2@db/prod", "MODEL": "gpt-x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
		"OPENAI_API_KEY": "sk-openai-key", "HOME": "/home/ada"}
	opts := LoadOptions{Root: root, Getenv: func(k string) string { return vars[k] }, Env: policy}
	if name == "targets.yaml" {
		tf, ds := LoadTargetsWith(p, opts)
		return nil, tf, ds
	}
	s, ds := Load(p, opts)
	return s, nil, ds
}

func TestEnvPolicy(t *testing.T) {
	t.Parallel()
	idFromEnv := "tests:\n  - id: t-${{ DATABASE_URL }}\n    input: hi\n    criteria: c\n"
	notAllowed := "x.eval.yaml:2:9: error: ${{ DATABASE_URL }} reads an environment variable that is not allowed; declare it with the action input env_allow: DATABASE_URL (or evalgate --allow-env DATABASE_URL), or use it in a credential field of targets.yaml"
	tests := []struct {
		name, file, body string
		policy           *EnvPolicy
		want             string // a diagnostic, "" = none
		id               string // the first test's id, for eval files
	}{
		{"no policy reads any variable (AgentV)", "x.eval.yaml", idFromEnv, nil, "", "t-postgres://app:hunter2@db/prod"},
		{"a test id may not read an undeclared variable", "x.eval.yaml", idFromEnv, &EnvPolicy{}, notAllowed, ""},
		{"validate warns and reads it", "x.eval.yaml", idFromEnv, &EnvPolicy{Warn: true},
			strings.Replace(notAllowed, ": error: ", ": warning: ", 1) + " (evalgate run refuses it)", "t-postgres://app:hunter2@db/prod"},
		{"a declared variable is read", "x.eval.yaml", idFromEnv, &EnvPolicy{Allow: []string{"DATABASE_URL"}}, "", "t-postgres://app:hunter2@db/prod"},
		{"the built-in is always read", "x.eval.yaml", "tests:\n  - id: t\n    input: ${{ AGENTV_REPO_ROOT }}\n    criteria: c\n", &EnvPolicy{}, "", "t"},
		{"promptfoo env is the same variable", "x.eval.yaml", "prompts: [\"{{ q }} {{ env.MODEL }}\"]\nproviders: [p]\ntests:\n  - id: t\n    vars: {q: hi}\n    assert: [ok]\n", &EnvPolicy{},
			"{{ env.MODEL }} reads an environment variable that is not allowed", ""},
		{"credential fields read any variable", "targets.yaml", "targets:\n  - name: a\n    provider: cli\n    command: agent {PROMPT}\n    env:\n      DATABASE_URL: ${{ DATABASE_URL }}\n  - name: g\n    provider: openai\n    api_key: ${{ OPENAI_API_KEY }}\n    base_url: ${{ OPENAI_BASE_URL }}\n", &EnvPolicy{}, "", ""},
		{"a model field may not read an undeclared variable", "targets.yaml", "targets:\n  - name: g\n    provider: openai\n    model: ${{ MODEL }}\n", &EnvPolicy{},
			"targets.yaml:4:12: error: ${{ MODEL }} reads an environment variable that is not allowed", ""},
		{"a model field reads a declared one", "targets.yaml", "targets:\n  - name: g\n    provider: openai\n    model: ${{ MODEL }}\n", &EnvPolicy{Allow: []string{"MODEL"}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, ds := loadPolicy(t, tt.file, tt.body, tt.policy)
			got := ""
			for _, d := range ds {
				got += d.String() + "\n"
			}
			switch {
			case tt.want == "" && got != "":
				t.Fatalf("diagnostics:\n%s", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Fatalf("want %q, got:\n%s", tt.want, got)
			}
			if tt.id != "" && (s == nil || s.Tests[0].ID != tt.id) {
				t.Fatalf("suite %+v, want test id %q", s, tt.id)
			}
			if tt.policy != nil && !tt.policy.Warn && tt.want != "" && strings.Contains(got, "hunter2") {
				t.Fatalf("a refused value reached a diagnostic:\n%s", got)
			}
		})
	}
}

// TestCredentialFieldReadsAreSecrets: whatever a credential field reads from the environment
// is scrubbed, whatever its name; the process basics are not; each setting's reads are kept.
func TestCredentialFieldReadsAreSecrets(t *testing.T) {
	t.Parallel()
	body := "targets:\n  - name: a\n    provider: cli\n    command: agent {PROMPT}\n    env:\n      DATABASE_URL: ${{ DATABASE_URL }}\n      WHERE: ${{ HOME }}\n"
	_, tf, ds := loadPolicy(t, "targets.yaml", body, &EnvPolicy{})
	if tf == nil || ds.HasErrors() {
		t.Fatalf("%v", ds)
	}
	if diff := cmp.Diff([]string{"postgres://app:hunter2@db/prod"}, tf.Secrets()); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	a, _ := tf.Lookup("a")
	if diff := cmp.Diff(map[string][]string{"env.DATABASE_URL": {"DATABASE_URL"}, "env.WHERE": {"HOME"}}, a.Reads); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if p := a.PosOf("env"); p.Line != 5 {
		t.Errorf("env at %v", p)
	}
}
