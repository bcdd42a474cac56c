package suite

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalgate/evalgate/internal/providers"
)

func TestUnknownKeys(t *testing.T) {
	t.Parallel()
	const test = "tests:\n  - id: t\n    input: hi\n"
	tests := []struct {
		name, file, body string
		severity         Severity
		line, col        int
		want             string
	}{
		{"test key typo", "x.eval.yaml", test + "    critera: typo\n    expected_output: x\n", Error, 4, 5, `test: unknown key "critera" (did you mean "criteria"?)`},
		{"grader weigth", "x.eval.yaml", test + "    assertions:\n      - {type: contains, value: x, weigth: 2}\n", Error, 5, 36, `unknown key "weigth" (did you mean "weight"?)`},
		{"code grader weigth", "x.eval.yaml", test + "    assertions:\n      - {type: code-grader, command: x, weigth: 2}\n", Error, 5, 41, `unknown key "weigth" (did you mean "weight"?)`},
		{"criterion requried", "x.eval.yaml", test + "    assertions:\n      - type: rubrics\n        criteria:\n          - {id: a, outcome: x, requried: false}\n", Error, 7, 33, `unknown key "requried" (did you mean "required"?)`},
		{"execution treshold", "x.eval.yaml", "execution:\n  treshold: 0.9\n" + test + "    criteria: c\n", Error, 2, 3, `execution: unknown key "treshold" (did you mean "threshold"?)`},
		{"case of a key", "x.eval.yaml", test + "    Criteria: c\n    expected_output: x\n", Error, 4, 5, `unknown key "Criteria" (did you mean "criteria"?)`},
		{"rubrics sampels", "x.eval.yaml", test + "    assertions:\n      - {type: rubrics, criteria: [a], sampels: 3}\n", Error, 5, 40, `did you mean "samples"?`},
		{"an unrelated key warns", "x.eval.yaml", test + "    criteria: c\n    colour: red\n", Warning, 5, 5, `test: unknown key "colour"`},
		{"a short near key warns", "x.eval.yaml", test + "    criteria: c\n    ids: [a]\n", Warning, 5, 5, `unknown key "ids" (did you mean "id"?)`},
		{"grader_taget", "targets.yaml", "targets:\n  - name: a\n    provider: cli\n    command: x\n    grader_taget: judge\n", Error, 5, 5, `target a: unknown key "grader_taget" (did you mean "grader_target"?)`},
		{"base_ur", "targets.yaml", "targets:\n  - name: gpt\n    provider: openai\n    base_ur: http://localhost:8000/v1\n", Error, 4, 5, `target gpt: unknown key "base_ur" (did you mean "base_url"?)`},
		{"api_kye", "targets.yaml", "targets:\n  - name: gpt\n    provider: anthropic\n    api_kye: x\n", Error, 4, 5, `did you mean "api_key"?`},
		{"pricing typo", "targets.yaml", "targets:\n  - name: gpt\n    provider: openai\n    pricing: {input: 1, cached_inptu: 1}\n", Error, 4, 25, `target gpt pricing: unknown key "cached_inptu" (did you mean "cached_input"?)`},
		{"healthcheck typo", "targets.yaml", "targets:\n  - name: a\n    provider: cli\n    command: x\n    healthcheck: {url: http://x, timeout_secods: 3}\n", Error, 5, 34, `did you mean "timeout_seconds"?`},
		{"mock replise", "targets.yaml", "targets:\n  - name: j\n    provider: mock\n    replise: r.jsonl\n", Error, 4, 5, `did you mean "replies"?`},
		{"key for another provider warns", "targets.yaml", "targets:\n  - name: gpt\n    provider: openai\n    command: x\n", Warning, 4, 5, `target gpt: unknown key "command"`},
		{"unknown provider: base key typo", "targets.yaml", "targets:\n  - name: x\n    provider: bedrock\n    grader_targt: j\n", Error, 4, 5, `did you mean "grader_target"?`},
		{"top-level typo", "targets.yaml", "targest:\n  - name: x\n", Error, 1, 1, `targets file: unknown key "targest" (did you mean "targets"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, ds := loadEnv(t, tt.file, tt.body)
			for _, d := range ds {
				if d.Severity == tt.severity && d.Pos.Line == tt.line && d.Pos.Col == tt.col && strings.Contains(d.Message, tt.want) {
					if tt.severity == Warning && ds.HasErrors() {
						t.Fatalf("a warning case has errors:\n%s", dump(ds))
					}
					return
				}
			}
			t.Fatalf("want a %s at %d:%d containing %q, got:\n%s", tt.severity, tt.line, tt.col, tt.want, dump(ds))
		})
	}
}

// TestAgentVTargetsKeysAreKnown: the keys AgentV documents for its providers load without
// a diagnostic, so real AgentV targets files do not break.
func TestAgentVTargetsKeysAreKnown(t *testing.T) {
	t.Parallel()
	body := `targets:
  - name: gpt
    provider: openai
    model: m
    api_key: k
    base_url: http://h/v1
    api_format: responses
    temperature: 0
    max_output_tokens: 10
    max_retries: 2
    retry_status_codes: [429]
    fallback_targets: [claude]
    workers: 2
    pricing: {input: 1, output: 2, cached_input: 0.5}
  - name: az
    provider: azure-openai
    endpoint: https://x
    resource: r
    deployment: d
    version: v1
  - name: claude
    provider: anthropic
    model: m
    thinking_budget: 100
  - name: agent
    provider: cli
    command: run {PROMPT}
    cwd: .
    timeout_seconds: 30
    files_format: "{path}"
    verbose: true
    keep_temp_files: true
    provider_batching: false
    healthcheck: {command: "true", cwd: ., timeout_seconds: 5}
    env: {A: b}
    output_format: agentv
    grader_target: gpt
  - name: cc
    provider: claude-code
    executable: claude
    max_turns: 3
    stream_log: raw
    system_prompt: x
  - name: cop
    provider: copilot-sdk
    byok: {type: azure}
    github_token: t
    subagent_mode_allowed: true
  - name: pi
    provider: pi-cli
    subprovider: openrouter
    thinking: low
    tools: [read]
  - name: rec
    provider: replay
    fixtures: f.jsonl
    source_target: agent
  - name: m
    provider: mock
    response: hi
    delay_ms: 5
    usage: {input: 1, output: 2}
  - name: default
    use_target: gpt
`
	_, tf, ds := loadEnv(t, "targets.yaml", body)
	if tf == nil || len(ds) != 0 {
		t.Fatalf("diagnostics:\n%s", dump(ds))
	}
}

func TestIsTypo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s, known string
		want     bool
	}{
		{"weigth", "weight", true}, {"requried", "required", true}, {"treshold", "threshold", true},
		{"grader_taget", "grader_target", true}, {"base_ur", "base_url", true}, {"Weight", "weight", true},
		{"expected_outptu", "expected_output", true}, {"expectd_outpt", "expected_output", true},
		{"ids", "id", false}, {"tag", "tags", false}, {"on", "id", false}, {"weights", "weight", true},
		{"colour", "value", false}, {"note", "notes", true},
	} {
		if got := isTypo(tt.s, tt.known); got != tt.want {
			t.Errorf("isTypo(%q, %q) = %v", tt.s, tt.known, got)
		}
	}
}

// TestEveryTableKeyLoads: every key the table of providers gives a provider, and every
// alias, loads without a diagnostic; a typo of one of its keys is an error.
func TestEveryTableKeyLoads(t *testing.T) {
	t.Parallel()
	for _, p := range providers.All() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			for i, name := range append([]string{p.Name}, p.Aliases...) {
				fmt.Fprintf(&b, "  - name: t%d\n    provider: %s\n", i, name)
				for _, k := range p.Keys {
					fmt.Fprintf(&b, "    %s: x\n", k)
				}
			}
			_, tf, ds := loadEnv(t, "targets.yaml", "targets:\n"+b.String())
			if tf == nil || len(ds) != 0 {
				t.Fatalf("diagnostics:\n%s\n%s", dump(ds), b.String())
			}
			for _, tc := range tf.Targets {
				if tc.Provider != p.Name {
					t.Errorf("%s loads as provider %q, want %q", tc.Name, tc.Provider, p.Name)
				}
			}
			key := slices.MaxFunc(p.Keys, func(a, b string) int { return len(a) - len(b) })
			typo := key + "x"
			_, _, ds = loadEnv(t, "targets.yaml", fmt.Sprintf("targets:\n  - name: t\n    provider: %s\n    %s: x\n", p.Name, typo))
			if !ds.HasErrors() || !strings.Contains(dump(ds), fmt.Sprintf("did you mean %q?", key)) {
				t.Errorf("%s: want an error suggesting %s, got:\n%s", typo, key, dump(ds))
			}
		})
	}
}
