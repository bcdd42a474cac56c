package grader

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// lookup resolves a path of dot-separated keys and [i] indexes ("invoice.items[0].amount") in
// decoded JSON. found is false when any step is missing, so a present null is told apart from
// an absent field.
func lookup(v any, path string) (val any, found bool) {
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
	if len(parts) == 0 {
		return nil, false
	}
	cur := v
	for _, p := range parts {
		switch c := cur.(type) {
		case map[string]any:
			if cur, found = c[p]; !found {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

var fence = regexp.MustCompile("(?s)```[a-zA-Z0-9_-]*[ \t]*\r?\n(.*?)```")

// parseJSONText reads JSON from a model's answer: the whole text, else the first fenced code
// block (```json … ```), else the span from the first { to the last } (models often wrap JSON in
// prose).
func parseJSONText(text string) (any, error) {
	text = strings.TrimSpace(text)
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		return v, nil
	}
	if m := fence.FindStringSubmatch(text); m != nil {
		if json.Unmarshal([]byte(strings.TrimSpace(m[1])), &v) == nil {
			return v, nil
		}
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		if json.Unmarshal([]byte(text[i:j+1]), &v) == nil {
			return v, nil
		}
	}
	return nil, errors.New("no JSON found")
}
