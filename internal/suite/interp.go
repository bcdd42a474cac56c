package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	envVar     = regexp.MustCompile(`\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	nunjucks   = regexp.MustCompile(`\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	templateVr = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}`)
)

// interp applies ${{ VAR }} (every format; a missing variable is empty, as in AgentV), and in
// the promptfoo-aligned format {{ env.X }} (with AGENTV_REPO_ROOT set to the repository root).
// n is the node the text came from: a refused variable is reported there.
func (r *reader) interp(n *yaml.Node, s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	s = envVar.ReplaceAllStringFunc(s, func(m string) string {
		name := envVar.FindStringSubmatch(m)[1]
		return r.envValue(n, name, "${{ "+name+" }}")
	})
	if r.format == FormatPromptfoo {
		s = nunjucks.ReplaceAllStringFunc(s, func(m string) string {
			name := nunjucks.FindStringSubmatch(m)[1]
			return r.envValue(n, name, "{{ env."+name+" }}")
		})
	}
	if r.vars != nil {
		s = renderVars(s, r.vars)
	}
	return s
}

// envValue is one interpolated variable. A credential-looking variable is refused anywhere
// but a credential field of targets.yaml: interpolated into a test id, a prompt or a base_url,
// the value would reach the PR comment, the judge or a host the PR chose. With an EnvPolicy,
// any other variable must be allowed by it (see EnvPolicy.allows).
func (r *reader) envValue(n *yaml.Node, name, written string) string {
	if looksLikeCredential(name) && !r.field.cred {
		r.errorf(n, "%s looks like a credential; credentials may only be interpolated into api_key or env of targets.yaml", written)
		return ""
	}
	if p := r.opts.Env; !p.allows(name, r.field) {
		msg := fmt.Sprintf("%s reads an environment variable that is not allowed; declare it with the action input env_allow: %s (or evalgate --allow-env %s), or use it in a credential field of targets.yaml", written, name, name)
		if name == "PWD" {
			// The shell sets PWD; evalgate's container starts no shell, so it is empty there.
			msg += "; for a path in the repository write ${{ AGENTV_REPO_ROOT }}/… (PWD is empty in evalgate's container)"
		}
		if !p.Warn {
			r.errorf(n, "%s", msg)
			return ""
		}
		r.warnf(n, "%s (evalgate run refuses it)", msg)
	}
	v := r.getenv(name)
	if !r.field.targets {
		return v
	}
	if r.field.path != "" && !slices.Contains(r.reads[r.field.path], name) {
		r.reads[r.field.path] = append(r.reads[r.field.path], name)
	}
	switch {
	case v == "":
		if _, ok := r.unset[r.field.path]; !ok {
			r.unset[r.field.path] = name
		}
	case r.field.cred && !Builtin(name) && !publicVar(name):
		// Whatever a credential field reads from the environment is treated as a secret:
		// env: DATABASE_URL: ${{ DATABASE_URL }} names no credential, and holds one.
		r.secrets = append(r.secrets, v)
	}
	return v
}

func (r *reader) getenv(k string) string {
	if k == repoRootVar {
		if v := r.callGetenv(k); v != "" {
			return v
		}
		return r.opts.Root
	}
	return r.callGetenv(k)
}

func (r *reader) callGetenv(k string) string {
	if r.opts.Getenv == nil {
		return ""
	}
	return r.opts.Getenv(k)
}

// renderVars replaces {{ name }} and {{ a.b }} with a test's vars; unknown names stay as
// written, so a typo shows in the prompt instead of vanishing.
func renderVars(s string, vars map[string]any) string {
	return templateVr.ReplaceAllStringFunc(s, func(m string) string {
		name := templateVr.FindStringSubmatch(m)[1]
		if strings.HasPrefix(name, "env.") {
			return m
		}
		var cur any = vars
		for _, part := range strings.Split(name, ".") {
			mm, ok := cur.(map[string]any)
			if !ok {
				return m
			}
			if cur, ok = mm[part]; !ok {
				return m
			}
		}
		switch v := cur.(type) {
		case string:
			return v
		case nil:
			return ""
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			return string(b)
		default:
			return fmt.Sprint(v)
		}
	})
}

// coerce gives a whole-string ${{ VAR }} value the type its text has (true/false, a number),
// as AgentV does; any other string stays a string.
func coerce(s, raw string) any {
	if !envVar.MatchString(raw) || envVar.FindString(raw) != strings.TrimSpace(raw) {
		return s
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	if i, err := strconv.Atoi(s); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}
