package suite

import "gopkg.in/yaml.v3"

// The keys a targets.yaml entry may have: the ones evalgate reads (internal/llm/provider,
// internal/target/*, this package) and the ones AgentV 4.42 documents and validates
// (validation/targets-validator.ts), so that AgentV files load unchanged. A key that is a typo
// of one of them is an error (grader_taget would make the model grade itself, base_ur would
// send the key to the vendor's default host); other unknown keys warn.
var (
	targetBaseKeys = []string{"name", "provider", "use_target", "grader_target", "judge_target", "workers",
		"subagent_mode_allowed", "fallback_targets", "provider_batching", "$schema"}
	retryKeys = []string{"max_retries", "retry_initial_delay_ms", "retry_max_delay_ms", "retry_backoff_factor",
		"retry_status_codes"}
	modelKeys = append([]string{"api_key", "model", "deployment", "variant", "base_url", "endpoint", "resource",
		"api_format", "version", "api_version", "temperature", "max_output_tokens", "max_tokens", "thinking_budget",
		"structured_output", "request_timeout_seconds", "max_in_flight", "requests_per_minute", "rpm",
		"tokens_per_minute", "tpm", "pricing"}, retryKeys...)
	agentKeys = []string{"executable", "command", "binary", "args", "arguments", "model", "cwd", "timeout_seconds",
		"log_dir", "log_directory", "log_format", "log_output_format", "stream_log", "system_prompt"}
	copilotKeys = append([]string{"cli_url", "cli_path", "github_token", "subprovider", "base_url", "api_key",
		"bearer_token", "api_version", "api_format", "byok"}, agentKeys...)
	claudeKeys = append([]string{"max_turns", "max_budget_usd", "bypass_permissions", "variant"}, agentKeys...)
	piKeys     = append([]string{"api_key", "base_url", "endpoint", "subprovider", "pi_model", "pi_thinking", "pi_tools",
		"thinking", "tools"}, agentKeys...)
	vscodeKeys = []string{"executable", "wait", "dry_run", "subagent_root", "timeout_seconds"}

	providerKeys = map[string][]string{
		"openai": modelKeys, "azure": modelKeys, "anthropic": modelKeys, "gemini": modelKeys, "openrouter": modelKeys,
		"cli": {"command", "timeout_seconds", "cwd", "env", "output_format", "healthcheck", "files_format",
			"attachments_format", "verbose", "cli_verbose", "keep_temp_files", "keep_output_files"},
		"mock":   {"response", "replies", "delay_ms", "error", "usage", "trace"},
		"replay": {"outputs", "fixtures", "execution_traces", "source_target", "suite", "eval_path", "variant"},
		"codex":  append([]string{"model_reasoning_effort"}, agentKeys...),
		"claude": claudeKeys, "claude-cli": claudeKeys, "claude-sdk": claudeKeys,
		"copilot-cli": copilotKeys, "copilot-sdk": copilotKeys,
		"copilot-log":     {"cwd", "discover", "session_dir", "session_id", "session_state_dir"},
		"pi-coding-agent": piKeys, "pi-cli": piKeys,
		"vscode": vscodeKeys, "vscode-insiders": vscodeKeys,
	}
	// nestedTargetKeys are the keys of the mappings evalgate reads inside an entry.
	nestedTargetKeys = map[string][]string{
		"pricing":     {"input", "output", "cached_input"},
		"healthcheck": {"url", "command", "command_template", "cwd", "timeout_seconds"},
		"usage":       {"input", "output"},
	}
)

// targetKeys checks an entry's keys against what its provider reads. For a provider evalgate
// does not know, only typos of the common keys are reported.
func (r *reader) targetKeys(n *yaml.Node, t *TargetConfig) {
	what := "target " + t.Name
	own, knownProvider := providerKeys[t.Provider]
	known := append(append([]string(nil), targetBaseKeys...), own...)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if contains(known, k.Value) {
			if sub, ok := nestedTargetKeys[k.Value]; ok && knownProvider {
				if v := resolve(n.Content[i+1]); v != nil && v.Kind == yaml.MappingNode {
					r.fields(v, what+" "+k.Value, sub...)
				}
			}
			continue
		}
		if !knownProvider && t.UseTarget == "" {
			if s := suggest(k.Value, known); s == "" || !isTypo(k.Value, s) {
				continue
			}
		}
		r.unknownKey(k, what, known)
	}
}
