package main

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/providers"
	"github.com/evalgate/evalgate/internal/redact"
	"github.com/evalgate/evalgate/internal/suite"
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

// envName is what a variable name may look like in ${{ VAR }}.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkEnvNames checks the names of an allow-list (--allow-env, env_allow).
func checkEnvNames(names []string) error {
	for _, n := range names {
		if !envName.MatchString(n) {
			return fmt.Errorf("%q is not an environment variable name", n)
		}
	}
	return nil
}

// forkEnv refuses, when a fork's code runs with the job's secrets, a target whose env: would
// hand its agent something from evalgate's environment: a ${{ VAR }} (other than the
// built-ins) or a value equal to a credential evalgate holds. The fork wrote targets.yaml;
// its agent must not receive OPENAI_API_KEY or INPUT_GITHUB_TOKEN under a name it chose.
func forkEnv(f *suite.TargetsFile, isSecret func(string) bool) error {
	for _, t := range f.Targets {
		env, _ := t.Settings["env"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(env)) {
			path := "env." + k
			for _, name := range t.Reads[path] {
				if !suite.Builtin(name) {
					return &configError{pos: t.PosOf("env"), msg: fmt.Sprintf("target %s: %s: ${{ %s }}: fork code runs with this job's secrets (allow_fork_code), so an agent's env: may not read the job's environment (the fork wrote this file): write the value itself, or run the suite without allow_fork_code", t.Name, path, name)}
				}
			}
			if s, ok := env[k].(string); ok && isSecret != nil && isSecret(s) {
				return &configError{pos: t.PosOf("env"), msg: fmt.Sprintf("target %s: %s holds one of this job's credentials: fork code runs with this job's secrets (allow_fork_code), so an agent's env: may not receive one", t.Name, path)}
			}
		}
	}
	return nil
}

// forkHosts is the host policy when a fork's code runs with secrets (allow_fork_code). A key
// goes to hosts the workflow's environment names and hosts the base commit's targets files
// name; and to a vendor's default host only when it is not another vendor's key: the value of
// OPENAI_API_KEY goes to api.openai.com, never to another vendor's or a proxy's default host. A
// fork can change targets.yaml (its base_url and its api_key); it cannot change the base branch
// or the workflow.
func forkHosts(ctx context.Context, e env, root, baseSHA string, targetsFiles []string) func(host, apiKey string) error {
	configured := map[string]bool{}
	addURL := func(raw string) {
		if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.Hostname() != "" {
			configured[strings.ToLower(u.Hostname())] = true
		}
	}
	// The hosts the workflow itself configures for the vendors.
	for _, v := range providers.BaseURLVars() {
		addURL(e.getenv(v))
	}
	for _, f := range baseTargets(ctx, e, root, baseSHA, targetsFiles) {
		for _, t := range f.Targets {
			for _, k := range []string{"base_url", "endpoint"} {
				if s, ok := t.Settings[k].(string); ok {
					addURL(s)
				}
			}
		}
	}
	// Each vendor's default host, and which vendor (by its key's value) a key belongs to.
	vendorHost := map[string]bool{}
	type home struct{ host, keyVar string }
	owner := map[string]home{} // a vendor key's value → its vendor's default host ("": none)
	for _, p := range providers.All() {
		v := p.Vendor
		if v == nil {
			continue
		}
		if h := v.DefaultHost(); h != "" {
			vendorHost[h] = true
		}
		if key := e.getenv(v.KeyVar); v.KeyVar != "" && key != "" {
			owner[key] = home{v.DefaultHost(), v.KeyVar}
		}
	}
	return func(host, apiKey string) error {
		host = strings.ToLower(host)
		if configured[host] {
			return nil
		}
		if !vendorHost[host] {
			return fmt.Errorf("fork code runs with this job's secrets (allow_fork_code), so a vendor key goes only to hosts the base branch configures; %s is not one of them", host)
		}
		if h, ok := owner[apiKey]; ok && h.host != host {
			return fmt.Errorf("fork code runs with this job's secrets (allow_fork_code), so a vendor's key goes only to that vendor's host or hosts the base branch configures; this target would send %s to %s", h.keyVar, host)
		}
		return nil
	}
}

// baseTargets reads the base commit's version of each targets file (git show), skipping
// files the base does not have or that do not load.
func baseTargets(ctx context.Context, e env, root, baseSHA string, paths []string) []*suite.TargetsFile {
	if baseSHA == "" {
		return nil
	}
	dir, err := os.MkdirTemp("", "evalgate-base-targets-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	var out []*suite.TargetsFile
	for i, p := range paths {
		p, err := filepath.Abs(p)
		if err != nil || !fsroot.Within(root, p) {
			continue
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			continue
		}
		b, err := exec.CommandContext(ctx, "git", "-c", "safe.directory="+root, "-C", root, "show", baseSHA+":"+filepath.ToSlash(rel)).Output()
		if err != nil {
			continue
		}
		tmp := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p)))
		if os.WriteFile(tmp, b, 0o600) != nil {
			continue
		}
		if f, diags := suite.LoadTargetsWith(tmp, suite.LoadOptions{Root: dir, Getenv: e.getenv}); f != nil && !diags.HasErrors() {
			out = append(out, f)
		}
	}
	return out
}
