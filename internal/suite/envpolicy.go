package suite

import (
	"slices"

	"github.com/evalgate/evalgate/internal/providers"
)

// repoRootVar is AgentV's built-in variable: the repository root.
const repoRootVar = "AGENTV_REPO_ROOT"

// Builtin reports whether name is a variable evalgate itself defines for interpolation
// (AGENTV_REPO_ROOT): always allowed, and no secret.
func Builtin(name string) bool { return name == repoRootVar }

// publicVar reports whether name is one of the process basics that hold paths and names,
// never secrets: scrubbing $HOME from every report would wreck every path in it.
func publicVar(name string) bool {
	switch name {
	case "HOME", "USER", "LOGNAME", "PATH", "PWD", "SHELL", "TMPDIR", "TEMP", "TMP", "LANG", "TERM",
		"GITHUB_WORKSPACE", "RUNNER_TEMP", "RUNNER_TOOL_CACHE":
		return true
	}
	return false
}

// EnvPolicy says which environment variables ${{ VAR }} (and {{ env.VAR }}) may read. AgentV
// resolves any variable of the environment; in CI the environment holds the job's secrets
// under names nobody can list in advance (DATABASE_URL, SLACK_WEBHOOK_URL), and a pull
// request could interpolate one into a test id the comment shows. So a run reads only:
//   - the built-ins (AGENTV_REPO_ROOT);
//   - the names the workflow declares (Allow: the action's env_allow, evalgate --allow-env);
//   - in targets.yaml, any variable in a credential field (api_key, tokens, env: values):
//     that is what those fields are for, and their values are scrubbed as secrets;
//   - in targets.yaml, the variables a vendor's settings default to in the providers table
//     (OPENAI_BASE_URL, AZURE_OPENAI_ENDPOINT, …): evalgate reads those anyway.
type EnvPolicy struct {
	// Allow are the variables the workflow declares for evalgate.
	Allow []string
	// Warn reports a variable outside the policy as a warning and reads it (evalgate
	// validate, which must check AgentV's files as written); otherwise it is an error and
	// reads as empty.
	Warn bool
}

// allows reports whether a ${{ name }} may be read where f says the text lands. A nil policy
// allows every variable.
func (p *EnvPolicy) allows(name string, f field) bool {
	switch {
	case p == nil, Builtin(name), slices.Contains(p.Allow, name):
		return true
	case f.targets && f.cred:
		return true
	case f.targets:
		return slices.Contains(providers.EnvVars(), name)
	}
	return false
}
