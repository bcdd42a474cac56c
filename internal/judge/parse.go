package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/safetext"
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

// bounds is the range a criterion's integer score must fall in: 0–10 in range mode, the
// scale in Likert mode.
type bounds struct{ lo, hi int }

// parseChecks reads a rubric reply into findings for the grader's criteria. A structurally bad
// reply is an error (the judge is asked again); a bad value for one criterion, such as a
// score outside b, becomes that criterion's Err, which asks again for it.
func parseChecks(text string, mode suite.Mode, ids []string, b bounds) ([]rubric.Check, string, error) {
	obj, err := extractObject(repairBooleans(text))
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
			switch {
			case err != nil:
				ch.Err = "score: " + err.Error()
			case n < b.lo || n > b.hi:
				ch.Err = fmt.Sprintf("score %d is outside %d–%d", n, b.lo, b.hi)
			default:
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
		if v, ok := boolWord(s); ok {
			return v, nil
		}
	}
	return false, fmt.Errorf("not a boolean: %s", truncate(string(raw), 40))
}

// floatValue accepts a finite JSON number or a string holding one ("0.8"): judges quote
// numbers, and AgentV's structure-fix call would only unquote it.
func floatValue(raw json.RawMessage) (float64, error) {
	if raw == nil {
		return 0, errors.New("missing")
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, fmt.Errorf("not a number: %s", truncate(string(raw), 40))
		}
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, fmt.Errorf("not a number: %q", truncate(s, 40))
		}
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a finite number: %v", f)
	}
	return f, nil
}

// intValue accepts integers and integral numbers (7.0); 7.5 is an error, not a rounding.
func intValue(raw json.RawMessage) (int, error) {
	f, err := floatValue(raw)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1e6 {
		return 0, fmt.Errorf("not an integer: %v", f)
	}
	return int(f), nil
}

// freeformAssertion is one of a freeform reply's assertions.
type freeformAssertion struct {
	Text     string          `json:"text"`
	Passed   json.RawMessage `json:"passed"`
	Evidence string          `json:"evidence"`
}

// freeform is a freeform grader's reply.
type freeform struct {
	Score      float64             `json:"-"` // read by floatValue: it may be quoted
	Assertions []freeformAssertion `json:"assertions"`
	Details    map[string]any      `json:"details"`
}

// parseFreeform reads a freeform reply. As in AgentV's schema, the score must be a number in
// [0, 1]: 1.5, -0.2 or NaN is an unusable reply (asked again, then an error), never clamped
// into a pass.
func parseFreeform(text string) (*freeform, error) {
	obj, err := extractObject(repairBooleans(text))
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
	if f.Score, err = floatValue(raw["score"]); err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if f.Score < 0 || f.Score > 1 {
		return nil, fmt.Errorf("score %v is outside 0.0–1.0", f.Score)
	}
	if err := json.Unmarshal([]byte(obj), &f); err != nil {
		return nil, fmt.Errorf("reply does not match the schema: %w", err)
	}
	return &f, nil
}

// truncate cuts s to n characters for error messages, marking a cut with "…".
func truncate(s string, n int) string {
	if cut := safetext.TruncateRunes(s, n); len(cut) < len(s) {
		return cut + "…"
	}
	return s
}
