package pipeline

import (
	"fmt"

	"github.com/evalgate/evalgate/internal/providers"
	"github.com/evalgate/evalgate/internal/redact"
)

// CheckEnvNames checks the names of an allow-list of variables ${{ VAR }} may read
// (--allow-env, the action's env_allow).
func CheckEnvNames(names []string) error {
	for _, n := range names {
		if !envName(n) {
			return fmt.Errorf("%q is not an environment variable name", n)
		}
	}
	return nil
}

// envName reports whether s can be named in ${{ VAR }}.
func envName(s string) bool {
	for i, c := range s {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		digit := i > 0 && '0' <= c && c <= '9'
		if !letter && !digit {
			return false
		}
	}
	return s != ""
}

// knownCredentials are read when the environment cannot be listed (tests pass only getenv):
// GitHub's tokens and the variables the model vendors' keys default to.
var knownCredentials = append([]string{"INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"},
	providers.KeyVars()...)

// Credentials are the job's credentials: the values of every credential-looking variable of
// the environment environ lists, or, when it is nil, of the well-known credential variables
// read through getenv. The Runner adds what targets files interpolate as they are loaded.
func Credentials(environ func() []string, getenv func(string) string) []string {
	if environ != nil {
		return redact.Credentials(environ())
	}
	var values []string
	for _, k := range knownCredentials {
		if v := getenv(k); v != "" {
			values = append(values, v)
		}
	}
	return values
}

// JobSecrets are the values scrubbed from every output before anything is loaded: the job's
// Credentials and the values of the variables the workflow lets ${{ VAR }} read (allow), which
// it declares because a suite needs them, and which may be secrets under any name
// (DATABASE_URL).
func JobSecrets(environ func() []string, getenv func(string) string, allow []string) []string {
	return append(Credentials(environ, getenv), AllowedValues(getenv, allow)...)
}

// AllowedValues are the values of the variables allow lets ${{ VAR }} read: declared because
// a suite needs them, they may be secrets under any name.
func AllowedValues(getenv func(string) string, allow []string) []string {
	var values []string
	for _, k := range allow {
		if v := getenv(k); v != "" {
			values = append(values, v)
		}
	}
	return values
}
