package action

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/fsroot"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/providers"
	"github.com/evalgate/evalgate/internal/suite"
)

// The fork-code host policy: what a run must hold to when the trust table lets a fork's code
// run with the job's secrets (trust.ForkCode, allow_fork_code).

// forkPolicy is the pipeline.Fork of a job whose suites are the fork's: vendor keys go only to
// hosts the base branch and the workflow configure, and no agent's env: may carry the job's
// environment or credentials.
func (d *deps) forkPolicy(ctx context.Context, suites []*suite.Suite) *pipeline.Fork {
	getenv := d.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var isSecret func(string) bool
	if d.Scrub != nil {
		isSecret = d.Scrub.Has
	}
	return &pipeline.Fork{
		AllowHost:    forkHosts(ctx, getenv, d.Root, d.Event.BaseSHA, d.Runner.TargetsFiles(suites)),
		CheckTargets: func(f *suite.TargetsFile) error { return forkEnv(f, isSecret) },
	}
}

// envError is a fork's targets file's mistake, at the target's env:.
func envError(t *suite.TargetConfig, msg string) error {
	return suite.Diagnostics{{Pos: t.PosOf("env"), Severity: suite.Error, Message: msg}}
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
					return envError(t, fmt.Sprintf("target %s: %s: ${{ %s }}: fork code runs with this job's secrets (allow_fork_code), so an agent's env: may not read the job's environment (the fork wrote this file): write the value itself, or run the suite without allow_fork_code", t.Name, path, name))
				}
			}
			if s, ok := env[k].(string); ok && isSecret != nil && isSecret(s) {
				return envError(t, fmt.Sprintf("target %s: %s holds one of this job's credentials: fork code runs with this job's secrets (allow_fork_code), so an agent's env: may not receive one", t.Name, path))
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
func forkHosts(ctx context.Context, getenv func(string) string, root, baseSHA string, targetsFiles []string) func(host, apiKey string) error {
	configured := map[string]bool{}
	addURL := func(raw string) {
		if u, err := url.Parse(strings.TrimSpace(raw)); err == nil && u.Hostname() != "" {
			configured[strings.ToLower(u.Hostname())] = true
		}
	}
	// The hosts the workflow itself configures for the vendors.
	for _, v := range providers.BaseURLVars() {
		addURL(getenv(v))
	}
	for _, f := range baseTargets(ctx, getenv, root, baseSHA, targetsFiles) {
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
		if key := getenv(v.KeyVar); v.KeyVar != "" && key != "" {
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
func baseTargets(ctx context.Context, getenv func(string) string, root, baseSHA string, paths []string) []*suite.TargetsFile {
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
		if f, diags := suite.LoadTargetsWith(tmp, suite.LoadOptions{Root: dir, Getenv: getenv}); f != nil && !diags.HasErrors() {
			out = append(out, f)
		}
	}
	return out
}
