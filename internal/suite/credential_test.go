package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// env is the process environment the credential tests see.
var env = map[string]string{
	"INPUT_GITHUB_TOKEN": "ghs_input_token", "OPENAI_API_KEY": "sk-openai-key", "GITHUB_TOKEN": "ghs_github_token",
	"AZURE_OPENAI_API_KEY": "azure-key-value", "USER_NAME": "ada", "HOME": "/home/ada", "MODEL": "gpt-x",
	"EMPTY": "",
}

func getenv(k string) string { return env[k] }

// loadEnv loads an eval file (or a targets file when name ends in targets.yaml) written into
// a fresh root, with env as the environment.
func loadEnv(t *testing.T, name, body string) (*Suite, *TargetsFile, Diagnostics) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, "targets.yaml") {
		tf, ds := LoadTargetsWith(p, LoadOptions{Root: root, Getenv: getenv})
		return nil, tf, ds
	}
	s, ds := Load(p, LoadOptions{Root: root, Getenv: getenv})
	return s, nil, ds
}

const credMsg = " looks like a credential; credentials may only be interpolated into api_key or env of targets.yaml"

func TestCredentialInterpolationRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, body string
		line, col        int
		want             string // the variable as reported
	}{
		{"test id", "x.eval.yaml", "tests:\n  - id: ${{ INPUT_GITHUB_TOKEN }}\n    input: hi\n    criteria: c\n", 2, 9, "${{ INPUT_GITHUB_TOKEN }}"},
		{"input without spaces", "x.eval.yaml", "tests:\n  - id: t\n    input: key ${{OPENAI_API_KEY}}\n    criteria: c\n", 3, 12, "${{ OPENAI_API_KEY }}"},
		{"lower case", "x.eval.yaml", "tests:\n  - id: t\n    input: hi\n    criteria: ${{ openai_api_key }}\n", 4, 15, "${{ openai_api_key }}"},
		{"actions runtime", "x.eval.yaml", "tests:\n  - id: t\n    input: hi\n    criteria: c\n    metadata: {t: \"${{ ACTIONS_RUNTIME_TOKEN }}\"}\n", 5, 19, "${{ ACTIONS_RUNTIME_TOKEN }}"},
		{"vars", "x.eval.yaml", "tests:\n  - id: t\n    vars: {k: \"${{ MY_SECRET }}\"}\n    input: \"{{ k }}\"\n    criteria: c\n", 3, 15, "${{ MY_SECRET }}"},
		{"hook command", "x.eval.yaml", "workspace:\n  hooks:\n    before_all: git clone https://${{ GH_PAT }}@github.com/x/y\ntests:\n  - id: t\n    input: hi\n    criteria: c\n", 3, 17, "${{ GH_PAT }}"},
		{"tests path", "x.eval.yaml", "tests: ${{ DB_PASSWORD }}.yaml\n", 1, 8, "${{ DB_PASSWORD }}"},
		{"promptfoo env", "x.eval.yaml", "prompts: [\"{{ q }} {{ env.GITHUB_TOKEN }}\"]\nproviders: [p]\ntests:\n  - id: t\n    vars: {q: hi}\n    assert: [ok]\n", 1, 11, "{{ env.GITHUB_TOKEN }}"},
		{"jsonl row", "x.jsonl", `{"id": "t", "input": "${{ AZURE_OPENAI_API_KEY }}", "criteria": "c"}` + "\n", 1, 22, "${{ AZURE_OPENAI_API_KEY }}"},
		{"targets base_url", "targets.yaml", "targets:\n  - name: gpt\n    provider: openai\n    base_url: https://h/${{ OPENAI_API_KEY }}\n", 4, 15, "${{ OPENAI_API_KEY }}"},
		{"targets model", "targets.yaml", "targets:\n  - name: gpt\n    provider: openai\n    model: ${{ ACTIONS_ID_TOKEN_REQUEST_TOKEN }}\n", 4, 12, "${{ ACTIONS_ID_TOKEN_REQUEST_TOKEN }}"},
		{"targets name", "targets.yaml", "targets:\n  - name: ${{ GITHUB_TOKEN }}\n    provider: mock\n", 2, 11, "${{ GITHUB_TOKEN }}"},
		{"cli command", "targets.yaml", "targets:\n  - name: a\n    provider: cli\n    command: agent --token ${{ GITHUB_TOKEN }} {PROMPT}\n", 4, 14, "${{ GITHUB_TOKEN }}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, ds := loadEnv(t, tt.file, tt.body)
			if s != nil {
				t.Errorf("loaded: %+v", s.Tests[0])
			}
			for _, v := range env {
				if v != "" && strings.Contains(dump(ds), v) {
					t.Fatalf("a value reached a diagnostic:\n%s", dump(ds))
				}
			}
			for _, d := range ds {
				if d.Severity == Error && d.Pos.Line == tt.line && d.Pos.Col == tt.col && d.Message == tt.want+credMsg {
					return
				}
			}
			t.Fatalf("want %d:%d: %s%s, got:\n%s", tt.line, tt.col, tt.want, credMsg, dump(ds))
		})
	}
}

func TestCredentialFieldsAndSecrets(t *testing.T) {
	t.Parallel()
	body := "targets:\n" +
		"  - name: gpt\n    provider: openai\n    model: ${{ MODEL }}\n    api_key: ${{ OPENAI_API_KEY }}\n" +
		"  - name: agent\n    provider: cli\n    command: agent {PROMPT}\n    env:\n      GH_TOKEN: ${{ GITHUB_TOKEN }}\n      WHO: ${{ USER_NAME }}\n      HOME_DIR: ${{ HOME }}\n" +
		"  - name: copilot\n    provider: copilot-sdk\n    byok: {api_key: \"${{ AZURE_OPENAI_API_KEY }}\"}\n    github_token: literal-token-1234\n" +
		"  - name: short\n    provider: openai\n    api_key: abc\n"
	_, tf, ds := loadEnv(t, "targets.yaml", body)
	if tf == nil || ds.HasErrors() {
		t.Fatalf("credential fields refused:\n%s", dump(ds))
	}
	want := []string{"azure-key-value", "ghs_github_token", "literal-token-1234", "sk-openai-key"}
	if diff := cmp.Diff(want, tf.Secrets()); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	gpt, _ := tf.Lookup("gpt")
	agent, _ := tf.Lookup("agent")
	if gpt.Settings["api_key"] != "sk-openai-key" || gpt.Settings["model"] != "gpt-x" {
		t.Errorf("settings %v", gpt.Settings)
	}
	if diff := cmp.Diff(map[string]any{"GH_TOKEN": "ghs_github_token", "WHO": "ada", "HOME_DIR": "/home/ada"}, agent.Settings["env"]); diff != "" {
		t.Errorf("agent env (-want +got):\n%s", diff)
	}
}

func TestUnsetVariablesAreRecorded(t *testing.T) {
	t.Parallel()
	body := "targets:\n  - name: gpt\n    provider: openai\n    model: m\n    api_key: ${{ MY_KEY }}\n    base_url: ${{ EMPTY }}\n" +
		"  - name: agent\n    provider: cli\n    command: a\n    env: {GH_TOKEN: \"${{ GH_TOKEN }}\", WHO: \"${{ USER_NAME }}\"}\n"
	_, tf, ds := loadEnv(t, "targets.yaml", body)
	if tf == nil || ds.HasErrors() {
		t.Fatalf("did not load:\n%s", dump(ds))
	}
	gpt, _ := tf.Lookup("gpt")
	agent, _ := tf.Lookup("agent")
	if diff := cmp.Diff(map[string]string{"api_key": "MY_KEY", "base_url": "EMPTY"}, gpt.Unset); diff != "" {
		t.Fatalf("gpt unset (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"env.GH_TOKEN": "GH_TOKEN"}, agent.Unset); diff != "" {
		t.Fatalf("agent unset (-want +got):\n%s", diff)
	}
	tests := []struct {
		cfg  *TargetConfig
		key  string
		want string // "" = nil
	}{
		{gpt, "api_key", "targets.yaml:5:5: target gpt: api_key: ${{ MY_KEY }} is not set (set the MY_KEY environment variable)"},
		{gpt, "base_url", "targets.yaml:6:5: target gpt: base_url: ${{ EMPTY }} is not set (set the EMPTY environment variable)"},
		{gpt, "model", ""},
		{agent, "env.GH_TOKEN", "targets.yaml:10:5: target agent: env.GH_TOKEN: ${{ GH_TOKEN }} is not set (set the GH_TOKEN environment variable)"},
		{agent, "env.WHO", ""},
	}
	for _, tt := range tests {
		err := tt.cfg.unsetError(tt.key)
		if (err == nil) != (tt.want == "") || (err != nil && err.Error() != tt.want) {
			t.Errorf("UnsetError(%s) = %v, want %q", tt.key, err, tt.want)
		}
	}
}

func TestLooksLikeCredential(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "AZURE_OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "INPUT_GITHUB_TOKEN": true,
		"INPUT_TARGET": true, "ACTIONS_RUNTIME_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_URL": true, "RUNNER_TOKEN": true,
		"DB_PASSWORD": true, "SMTP_PASSWD": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "SSH_PRIVATE_KEY": true,
		"GH_PAT": true, "KEY": true, "MY_SECRET": true, "api_key": true, "AWS_ACCESSKEY": true, "HF_AUTH": true,
		"USER_NAME": false, "HOME": false, "MODEL": false, "KEYBOARD_LAYOUT": false, "PATH": false,
		"AGENTV_REPO_ROOT": false, "AZURE_OPENAI_ENDPOINT": false, "MAX_TOKENS_HINT": true, "PATCH_LEVEL": false,
	} {
		if got := looksLikeCredential(name); got != want {
			t.Errorf("looksLikeCredential(%s) = %v", name, got)
		}
	}
	for key, want := range map[string]bool{
		"api_key": true, "bearer_token": true, "github_token": true, "client_secret": true, "apiKey": true, "apikey": true,
		"max_output_tokens": false, "tokens_per_minute": false, "base_url": false, "model": false, "keep_temp_files": false,
	} {
		if got := credentialField(key); got != want {
			t.Errorf("credentialField(%s) = %v", key, got)
		}
	}
}

func TestControlCharactersInNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, body string
		line, col        int
		want             string
	}{
		{"newline in a test id", "x.eval.yaml", "tests:\n  - id: \"a\\n::add-mask::x\"\n    input: hi\n    criteria: c\n", 2, 9, `test id "a\n::add-mask::x" contains a line break`},
		{"carriage return", "x.eval.yaml", "tests:\n  - id: \"a\\rb\"\n    input: hi\n    criteria: c\n", 2, 9, `test id "a\rb"`},
		{"bidi override in the suite name", "x.eval.yaml", "name: \"ok\\u202egnp\"\ntests:\n  - id: t\n    input: hi\n    criteria: c\n", 1, 7, `suite name "ok\u202egnp"`},
		{"tab in a criterion id", "x.eval.yaml", head + "      - type: rubrics\n        criteria:\n          - {id: \"a\\tb\", outcome: x}\n", 7, 18, `criterion id "a\tb"`},
		{"bell in a grader name", "x.eval.yaml", head + "      - {type: contains, value: x, name: \"g\\a\"}\n", 5, 42, `grader name "g\a"`},
		{"line separator in a jsonl id", "x.jsonl", "{\"id\": \"a\\u2028b\", \"input\": \"hi\", \"criteria\": \"c\"}\n", 1, 8, `test id "a\u2028b"`},
		{"escape in a target name", "targets.yaml", "targets:\n  - name: \"a\\e[31m\"\n    provider: mock\n", 2, 11, `target name "a\x1b[31m" contains a line break`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, ds := loadEnv(t, tt.file, tt.body)
			if s != nil {
				t.Errorf("loaded")
			}
			for _, d := range ds {
				if d.Severity == Error && d.Pos.Line == tt.line && d.Pos.Col == tt.col && strings.Contains(d.Message, tt.want) {
					return
				}
			}
			t.Fatalf("want an error at %d:%d containing %q, got:\n%s", tt.line, tt.col, tt.want, dump(ds))
		})
	}
}

func TestFileNameWithANewlineIsRefused(t *testing.T) {
	t.Parallel()
	s, _, ds := loadEnv(t, "a\nb.eval.yaml", "tests:\n  - id: t\n    input: hi\n    criteria: c\n")
	if s != nil || !strings.Contains(dump(ds), `suite name "a\nb" contains a line break`) {
		t.Fatalf("got:\n%s", dump(ds))
	}
}

func TestPanicIsAnErrorOfThatFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	eval, targets := filepath.Join(dir, "x.eval.yaml"), filepath.Join(dir, "targets.yaml")
	if err := os.WriteFile(eval, []byte("tests:\n  - id: ${{ X }}\n    input: hi\n    criteria: c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(targets, []byte("targets:\n  - name: ${{ X }}\n    provider: mock\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := func(string) string { panic("boom") }
	s, ds := Load(eval, LoadOptions{Root: dir, Getenv: boom})
	if s != nil || len(ds) != 1 || ds[0].String() != "x.eval.yaml:1:1: error: internal error while reading this file (please report it): boom" {
		t.Errorf("eval file: %v", ds)
	}
	tf, ds := LoadTargetsWith(targets, LoadOptions{Root: dir, Getenv: boom})
	if tf != nil || len(ds) != 1 || !strings.Contains(ds[0].String(), "targets.yaml:1:1: error: internal error") {
		t.Errorf("targets file: %v", ds)
	}
}
