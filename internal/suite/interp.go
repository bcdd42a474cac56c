package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	envVar     = regexp.MustCompile(`\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	nunjucks   = regexp.MustCompile(`\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
	templateVr = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}`)
)

// scope is what {{ var }} renders from: a test's vars while the test's own strings are read.
// Suite-level strings are read in the zero scope, which renders none.
type scope struct {
	vars map[string]any
}

// interp applies ${{ VAR }} (every format; a missing variable is empty, as in AgentV), in the
// promptfoo-aligned format {{ env.X }} (with AGENTV_REPO_ROOT set to the repository root), and
// sc's {{ var }}s. n is the node the text came from: a refused variable is reported there.
func (r *reader) interp(sc scope, n *yaml.Node, s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	s = envVar.ReplaceAllStringFunc(s, func(m string) string {
		name := envVar.FindStringSubmatch(m)[1]
		v, _ := r.env(n, name, "${{ "+name+" }}", field{})
		return v
	})
	if r.format == FormatPromptfoo {
		s = nunjucks.ReplaceAllStringFunc(s, func(m string) string {
			name := nunjucks.FindStringSubmatch(m)[1]
			v, _ := r.env(n, name, "{{ env."+name+" }}", field{})
			return v
		})
	}
	if sc.vars != nil {
		s = renderVars(s, sc.vars)
	}
	return s
}

// env is one interpolated variable, read where f says the text lands (field{} in an eval
// file); ok is false when it is refused. A credential-looking variable is refused anywhere
// but a credential field of targets.yaml: interpolated into a test id, a prompt or a base_url,
// the value would reach the PR comment, the judge or a host the PR chose. With an EnvPolicy,
// any other variable must be allowed by it (see EnvPolicy.allows).
func (d *decoder) env(n *yaml.Node, name, written string, f field) (v string, ok bool) {
	if looksLikeCredential(name) && !f.cred {
		d.errorf(n, "%s looks like a credential; credentials may only be interpolated into api_key or env of targets.yaml", written)
		return "", false
	}
	if p := d.opts.Env; !p.allows(name, f) {
		msg := fmt.Sprintf("%s reads an environment variable that is not allowed; declare it with the action input env_allow: %s (or evalgate --allow-env %s), or use it in a credential field of targets.yaml", written, name, name)
		if name == "PWD" {
			// The shell sets PWD; evalgate's container starts no shell, so it is empty there.
			msg += "; for a path in the repository write ${{ AGENTV_REPO_ROOT }}/… (PWD is empty in evalgate's container)"
		}
		if !p.Warn {
			d.errorf(n, "%s", msg)
			return "", false
		}
		d.warnf(n, "%s (evalgate run refuses it)", msg)
	}
	return d.getenv(name), true
}

func (d *decoder) getenv(k string) string {
	if k == repoRootVar {
		if v := d.callGetenv(k); v != "" {
			return v
		}
		return d.opts.Root
	}
	return d.callGetenv(k)
}

func (d *decoder) callGetenv(k string) string {
	if d.opts.Getenv == nil {
		return ""
	}
	return d.opts.Getenv(k)
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
