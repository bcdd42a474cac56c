package provider

import (
	"fmt"
	"strconv"
	"strings"
)

// settings reads typed values from a targets.yaml entry, where ${{ VAR }} interpolation can
// turn a number into a string.
type settings struct {
	m map[string]any
	// unset names the variable each setting's ${{ VAR }} referenced that was not set.
	unset map[string]string
	errs  []string
}

// str returns the first of keys that is set, as a string.
func (s *settings) str(keys ...string) string {
	for _, k := range keys {
		switch v := s.m[k].(type) {
		case string:
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		case int, float64:
			return fmt.Sprint(v)
		}
	}
	return ""
}

// written reports whether the entry writes one of keys, even as "".
func (s *settings) written(keys ...string) bool {
	for _, k := range keys {
		if v, ok := s.m[k]; ok && v != nil {
			return true
		}
	}
	return false
}

// orEnv reads a string setting under keys, else the first of vars set in the environment. A
// key written but empty, such as an unset ${{ VAR }}, is an error naming the key instead of a
// fallback to vars.
func (s *settings) orEnv(getenv func(string) string, keys []string, vars ...string) string {
	if v := s.str(keys...); v != "" {
		return v
	}
	for _, k := range keys {
		if name, ok := s.unset[k]; ok {
			s.errs = append(s.errs, fmt.Sprintf("%s: ${{ %s }} is not set (set the %s environment variable)", k, name, name))
			return ""
		}
		if s.written(k) {
			msg := fmt.Sprintf("%s is empty: is the variable its ${{ }} names set?", k)
			if len(vars) > 0 {
				msg += fmt.Sprintf(" (a written %s never falls back to %s)", k, strings.Join(vars, " or "))
			}
			s.errs = append(s.errs, msg)
			return ""
		}
	}
	for _, v := range vars {
		if e := strings.TrimSpace(getenv(v)); e != "" {
			return e
		}
	}
	return ""
}

func (s *settings) num(key string) (float64, bool) {
	switch v := s.m[key].(type) {
	case int:
		return float64(v), true
	case float64:
		return v, true
	case string:
		if strings.TrimSpace(v) == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("%s: %q is not a number", key, v))
			return 0, false
		}
		return f, true
	case nil:
		return 0, false
	}
	s.errs = append(s.errs, fmt.Sprintf("%s: want a number", key))
	return 0, false
}

// nonNeg reads a number that must be ≥ 0.
func (s *settings) nonNeg(key string) (float64, bool) {
	f, ok := s.num(key)
	if ok && f < 0 {
		s.errs = append(s.errs, fmt.Sprintf("%s: must not be negative", key))
		return 0, false
	}
	return f, ok
}

func (s *settings) integer(keys ...string) int {
	for _, k := range keys {
		if f, ok := s.nonNeg(k); ok {
			return int(f)
		}
	}
	return 0
}

func (s *settings) boolean(key string, def bool) bool {
	switch v := s.m[key].(type) {
	case bool:
		return v
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			s.errs = append(s.errs, fmt.Sprintf("%s: %q is not true or false", key, v))
			return def
		}
		return b
	case nil:
		return def
	}
	s.errs = append(s.errs, fmt.Sprintf("%s: want true or false", key))
	return def
}

func (s *settings) ints(key string) []int {
	v, ok := s.m[key]
	if !ok || v == nil {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		s.errs = append(s.errs, fmt.Sprintf("%s: want a list of HTTP status codes", key))
		return nil
	}
	out := []int{}
	for _, x := range list {
		n, ok := x.(int)
		if !ok || n < 100 || n > 599 {
			s.errs = append(s.errs, fmt.Sprintf("%s: %v is not an HTTP status code", key, x))
			continue
		}
		out = append(out, n)
	}
	return out
}
