package proc

import (
	"os"
	"strings"
)

// inherited are the variables of evalgate's environment a user command keeps: what programs
// need to find tools, files, a locale and a terminal, and the non-secret facts about the CI
// run. Everything else — INPUT_GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_*,
// OPENAI_API_KEY and every other credential, and GITHUB_ENV/GITHUB_OUTPUT/GITHUB_PATH, through
// which a command could change later workflow steps — is dropped. A command that needs more
// gets it from its config (a cli target's env:).
var inherited = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true, "TERM": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	"CI": true, "GITHUB_ACTIONS": true, "GITHUB_WORKSPACE": true, "GITHUB_REPOSITORY": true,
	"GITHUB_SHA": true, "GITHUB_REF": true, "GITHUB_EVENT_NAME": true, "GITHUB_RUN_ID": true,
	"RUNNER_OS": true, "RUNNER_ARCH": true,
}

// inheritedPrefixes are families of variables kept whole (the locale categories).
var inheritedPrefixes = []string{"LC_"}

// env is the environment a user command gets: the allow-listed variables of environ
// (os.Environ() when nil), then extra (KEY=value). A later entry for a key replaces an earlier
// one, so extra wins over what is inherited.
func env(environ []string, extra ...string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	out := make([]string, 0, len(inherited)+len(extra))
	at := map[string]int{}
	add := func(kv string) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := at[k]; ok {
			out[i] = kv
			return
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok && kept(k) {
			add(kv)
		}
	}
	for _, kv := range extra {
		add(kv)
	}
	return out
}

func kept(k string) bool {
	if inherited[k] {
		return true
	}
	for _, p := range inheritedPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
