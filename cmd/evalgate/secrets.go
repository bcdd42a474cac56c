package main

import (
	"github.com/evalgate/evalgate/internal/providers"
	"github.com/evalgate/evalgate/internal/redact"
)

// knownCredentials are read when the environment cannot be listed (tests pass only getenv):
// GitHub's tokens and the variables the model vendors' keys default to.
var knownCredentials = append([]string{"INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"},
	providers.KeyVars()...)

// credentials are the job's credentials: the values of every credential-looking variable of
// the environment. The wiring adds what targets files interpolate as they are loaded.
func credentials(e env) []string {
	if e.environ != nil {
		return redact.Credentials(e.environ())
	}
	var values []string
	for _, k := range knownCredentials {
		if v := e.getenv(k); v != "" {
			values = append(values, v)
		}
	}
	return values
}

// jobSecrets are the values scrubbed from every output before anything is loaded: the job's
// credentials and the values of the variables the workflow lets ${{ VAR }} read (allow), which
// it declares because a suite needs them, and which may be secrets under any name
// (DATABASE_URL). The wiring adds what targets files interpolate as they are loaded.
func jobSecrets(e env, allow []string) []string {
	values := credentials(e)
	for _, k := range allow {
		if v := e.getenv(k); v != "" {
			values = append(values, v)
		}
	}
	return values
}
