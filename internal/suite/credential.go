package suite

import (
	"strings"

	"github.com/evalgate/evalgate/internal/redact"
)

// field says where interpolated text lands in a targets.yaml entry. Eval files have no
// credential fields at all: their text lands in field{}.
type field struct {
	targets bool   // reading a targets.yaml entry
	path    string // dotted key path inside the entry ("api_key", "env.GH_TOKEN", "byok.api_key")
	key     string // the last key of path
	cred    bool   // a credential field: credential-looking variables may be interpolated here
}

// under is where the text under mapping key k of the entry lands.
func (f field) under(k string) field {
	in := field{targets: f.targets, path: k, key: k}
	if f.path != "" {
		in.path = f.path + "." + k
	}
	// env values are handed to the agent explicitly: that is what they are for.
	in.cred = f.cred || credentialField(k) || f.path == "env"
	return in
}

// looksLikeCredential reports whether an environment variable's name says it holds a secret
// (one rule for the whole program: redact.IsCredentialName).
func looksLikeCredential(name string) bool { return redact.IsCredentialName(name) }

// credentialField reports whether a targets.yaml key holds a credential by nature: api_key,
// and the tokens and secrets agent providers read (bearer_token, github_token, …). Words are
// matched whole, so max_output_tokens is not one.
func credentialField(key string) bool {
	for _, seg := range strings.FieldsFunc(strings.ToLower(key), func(c rune) bool { return c == '_' || c == '-' }) {
		switch seg {
		case "key", "apikey", "token", "secret", "password", "passwd", "credential", "credentials", "pat", "authorization":
			return true
		}
	}
	return false
}
