package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/suite"
)

// maxReply bounds how much of a reply is parsed: a runaway judge must not cost a parse of
// megabytes.
const maxReply = 1 << 20

// maxStarts bounds the opening braces tried as the start of the object. Each try scans to the
// end of the reply, so without a bound a reply of a million "{" would take a trillion steps;
// real replies put their JSON at one of the first few braces.
const maxStarts = 32

// extractObject returns the first balanced JSON object in text, skipping code fences and prose.
// It scans rather than matching a greedy regex, so braces inside strings and a second object
// after the first do not confuse it.
func extractObject(text string) (string, error) {
	if len(text) > maxReply {
		text = text[:maxReply]
	}
	tries := 0
	for start := strings.IndexByte(text, '{'); start >= 0 && tries < maxStarts; tries++ {
		depth, inStr, esc := 0, false, false
		for i := start; i < len(text); i++ {
			c := text[i]
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth == 0 {
					candidate := text[start : i+1]
					if json.Valid([]byte(candidate)) {
						return candidate, nil
					}
					i = len(text) // not JSON: look for the next opening brace
				}
			}
		}
		next := strings.IndexByte(text[start+1:], '{')
		if next < 0 {
			break
		}
		start += next + 1
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("empty reply")
	}
	return "", errors.New("no JSON object in the reply")
}

// reply is the judge's JSON, with fields loose enough to report type errors per criterion.
type reply struct {
	Checks  []map[string]json.RawMessage `json:"checks"`
	Overall string                       `json:"overall_reasoning"`
}

// parseChecks reads a rubric reply into findings for the grader's criteria. A structurally bad
// reply is an error (the judge is asked again); a bad value for one criterion becomes that
// criterion's Err.
func parseChecks(text string, mode suite.Mode, ids []string) ([]rubric.Check, string, error) {
	obj, err := extractObject(text)
	if err != nil {
		return nil, "", err
	}
	var r reply
	if err := json.Unmarshal([]byte(obj), &r); err != nil {
		return nil, "", fmt.Errorf("reply does not match the schema: %w", err)
	}
	if r.Checks == nil {
		return nil, "", errors.New(`reply has no "checks" list`)
	}
	canon := map[string]string{}
	for _, id := range ids {
		canon[strings.ToLower(id)] = id
	}
	var out []rubric.Check
	for _, raw := range r.Checks {
		var ch rubric.Check
		_ = json.Unmarshal(raw["id"], &ch.ID)
		// Exact ids first; a judge that changed the case of an id still meant that criterion.
		if id, ok := canon[strings.ToLower(ch.ID)]; ok {
			ch.ID = id
		}
		_ = json.Unmarshal(raw["reasoning"], &ch.Reasoning)
		if mode == suite.ModeChecklist {
			b, err := boolValue(raw["satisfied"])
			if err != nil {
				ch.Err = "satisfied: " + err.Error()
			} else {
				ch.Satisfied = &b
			}
		} else {
			n, err := intValue(raw["score"])
			if err != nil {
				ch.Err = "score: " + err.Error()
			} else {
				ch.Score = &n
			}
		}
		out = append(out, ch)
	}
	return out, r.Overall, nil
}

// boolValue accepts JSON booleans and the strings judges write instead ("true", "yes", …).
func boolValue(raw json.RawMessage) (bool, error) {
	if raw == nil {
		return false, errors.New("missing")
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "satisfied", "pass":
			return true, nil
		case "false", "no", "unsatisfied", "fail":
			return false, nil
		}
	}
	return false, fmt.Errorf("not a boolean: %s", truncate(string(raw), 40))
}

// intValue accepts integers and integral numbers (7.0); 7.5 is an error, not a rounding.
func intValue(raw json.RawMessage) (int, error) {
	if raw == nil {
		return 0, errors.New("missing")
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, fmt.Errorf("not a number: %s", truncate(string(raw), 40))
		}
		if _, err := fmt.Sscan(s, &f); err != nil {
			return 0, fmt.Errorf("not a number: %q", truncate(s, 40))
		}
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
		return 0, fmt.Errorf("not an integer: %v", f)
	}
	return int(f), nil
}

// freeform is a freeform grader's reply.
type freeform struct {
	Score      float64 `json:"score"`
	Assertions []struct {
		Text     string `json:"text"`
		Passed   any    `json:"passed"`
		Evidence string `json:"evidence"`
	} `json:"assertions"`
	Details map[string]any `json:"details"`
}

func parseFreeform(text string) (*freeform, error) {
	obj, err := extractObject(text)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return nil, err
	}
	if _, ok := raw["score"]; !ok {
		return nil, errors.New(`reply has no "score"`)
	}
	var f freeform
	if err := json.Unmarshal([]byte(obj), &f); err != nil {
		return nil, fmt.Errorf("reply does not match the schema: %w", err)
	}
	if math.IsNaN(f.Score) {
		return nil, errors.New("score is not a number")
	}
	return &f, nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
