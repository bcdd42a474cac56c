package pipeline

import "fmt"

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
