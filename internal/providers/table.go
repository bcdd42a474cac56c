package providers

// The key lists: the keys evalgate reads (internal/llm/provider, internal/target/*,
// internal/suite) and the ones AgentV 4.42 documents and validates
// (validation/targets-validator.ts), so that AgentV files load unchanged.
var (
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
)

// table is every provider. A model vendor that speaks a wire evalgate has is one row here:
// its entries then load, run as targets and grade as judges.
var table = []Provider{
	// Model vendors.
	{Name: "openai", Keys: modelKeys, Vendor: &Vendor{Wire: OpenAI, KeyVar: "OPENAI_API_KEY",
		BaseURLVar: "OPENAI_BASE_URL", BaseURL: "https://api.openai.com/v1", Format: "chat"}},
	{Name: "azure", Aliases: []string{"azure-openai"}, Keys: modelKeys, Vendor: &Vendor{Wire: Azure,
		KeyVar: "AZURE_OPENAI_API_KEY", BaseURLVar: "AZURE_OPENAI_ENDPOINT",
		// AgentV reads an Azure entry's deployment before its model; AZURE_DEPLOYMENT_NAME is
		// AgentV's variable.
		ModelKeys:  []string{"deployment", "model"},
		ModelVars:  []string{"AZURE_OPENAI_DEPLOYMENT", "AZURE_DEPLOYMENT_NAME"},
		VersionVar: "AZURE_OPENAI_API_VERSION", Version: "v1",
		// AgentV talks to Azure through the Responses API.
		Format: "responses"}},
	{Name: "anthropic", Keys: modelKeys, Vendor: &Vendor{Wire: Anthropic, KeyVar: "ANTHROPIC_API_KEY",
		BaseURLVar: "ANTHROPIC_BASE_URL", BaseURL: "https://api.anthropic.com"}},
	{Name: "gemini", Aliases: []string{"google", "google-gemini"}, Keys: modelKeys, Vendor: &Vendor{}},
	// OpenRouter speaks OpenAI's chat completions at this base URL, as AgentV sends it; unlike
	// AgentV (which fixes the URL), base_url, endpoint and OPENROUTER_BASE_URL may move it.
	{Name: "openrouter", Keys: modelKeys, Vendor: &Vendor{Wire: OpenAI, KeyVar: "OPENROUTER_API_KEY",
		BaseURLVar: "OPENROUTER_BASE_URL", BaseURL: "https://openrouter.ai/api/v1", Format: "chat"}},

	// evalgate's own targets (internal/target/cli, mock, replay).
	{Name: "cli", Keys: []string{"command", "timeout_seconds", "cwd", "env", "output_format", "healthcheck", "files_format",
		"attachments_format", "verbose", "cli_verbose", "keep_temp_files", "keep_output_files"}},
	{Name: "mock", Keys: []string{"response", "replies", "delay_ms", "error", "usage", "trace"}, Files: []string{"replies"}},
	{Name: "replay", Keys: []string{"outputs", "fixtures", "execution_traces", "source_target", "suite", "eval_path", "variant"},
		Files: []string{"outputs", "fixtures", "execution_traces"}},

	// AgentV's agent providers: their entries load, evalgate does not run them.
	{Name: "codex", Aliases: []string{"codex-cli"}, Keys: append([]string{"model_reasoning_effort"}, agentKeys...)},
	{Name: "claude", Aliases: []string{"claude-code"}, Keys: claudeKeys},
	{Name: "claude-cli", Aliases: []string{"cc-mirror"}, Keys: claudeKeys},
	{Name: "claude-sdk", Keys: claudeKeys},
	{Name: "copilot-cli", Aliases: []string{"copilot"}, Keys: copilotKeys},
	{Name: "copilot-sdk", Aliases: []string{"copilot_sdk"}, Keys: copilotKeys},
	{Name: "copilot-log", Keys: []string{"cwd", "discover", "session_dir", "session_id", "session_state_dir"}},
	{Name: "pi-coding-agent", Aliases: []string{"pi"}, Keys: piKeys},
	{Name: "pi-cli", Keys: piKeys},
	{Name: "vscode", Keys: vscodeKeys},
	{Name: "vscode-insiders", Keys: vscodeKeys},
}
