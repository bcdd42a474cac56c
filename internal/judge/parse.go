package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/rubric"
	"github.com/evalgate/evalgate/internal/safetext"
	"github.com/evalgate/evalgate/internal/suite"
)

// maxReply bounds how much of a reply is parsed: a runaway judge must not cost a parse of
// megabytes.
const maxReply = 1 << 20

// maxStarts bounds the opening braces tried as the start of an object that turn out not to
// start one. Each such try scans to the end of the reply, so without a bound a reply of a
// million "{" would take a trillion steps; real replies put their JSON at one of the first
// few braces.
const maxStarts = 32

// maxObjects bounds the top-level objects read from one reply.
const maxObjects = 64

// objects returns the top-level balanced JSON objects in text, in order, skipping code
// fences and prose. It scans rather than matching a greedy regex, so braces inside strings do
// not confuse it; an object found is skipped whole, so the objects inside it are not listed
// again. broken are the balanced candidates that are not JSON: the objects inside one are
// listed, so a verdict quoted inside a judge's malformed own would otherwise stand alone.
func objects(text string) (out, broken []string, err error) {
	if len(text) > maxReply {
		text = text[:maxReply]
	}
	failed := 0
	for start := strings.IndexByte(text, '{'); start >= 0 && failed < maxStarts && len(out) < maxObjects; {
		end := -1
		depth, inStr, esc := 0, false, false
	scan:
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
					end = i + 1
					break scan
				}
			}
		}
		next := start + 1
		if end > 0 && json.Valid([]byte(text[start:end])) {
			out = append(out, text[start:end])
			next = end
		} else {
			failed++ // not JSON: look for the next opening brace
			if end > 0 {
				broken = append(broken, text[start:end])
			}
		}
		i := strings.IndexByte(text[next:], '{')
		if i < 0 {
			break
		}
		start = next + i
	}
	if len(out) > 0 {
		return out, broken, nil
	}
	if strings.TrimSpace(text) == "" {
		return nil, nil, errors.New("empty reply")
	}
	return nil, nil, errors.New("no JSON object in the reply")
}

// verdict picks the judge's own verdict among the objects of a reply: the one object that is
// a verdict (is reports whether an object is one). A judge may quote the answer, and the
// answer may hold a verdict of its own ({"checks": …} or {"score": …}) written to be read as
// the judge's: two different verdicts in one reply are ambiguous, an error (the judge is asked
// again), never a pass. The same verdict written twice is one. When no object is a verdict,
// fallback (nil: none) names the object whose error is reported. A malformed candidate that
// names what (broken, from objects) may be the judge's own verdict: beside a well-formed one it
// is as ambiguous as a second verdict.
func verdict(objs, broken []string, is func(obj string) bool, what string) (string, bool, error) {
	var found []string
	for _, o := range objs {
		if !is(o) {
			continue
		}
		if !slices.ContainsFunc(found, func(f string) bool { return sameJSON(f, o) }) {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return "", false, nil
	case 1:
		for _, b := range broken {
			if strings.Contains(b, what) {
				return "", false, fmt.Errorf("the reply holds a %s object and a malformed one that may be the judge's own (a quoted verdict?); reply with exactly one valid object", what)
			}
		}
		return found[0], true, nil
	}
	return "", false, fmt.Errorf("the reply holds %d different %s objects (a quoted verdict and the judge's own?); reply with exactly one", len(found), what)
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
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
	objs, broken, err := objects(repairBooleans(text))
	if err != nil {
		return nil, "", err
	}
	canon := map[string]string{}
	for _, id := range ids {
		canon[strings.ToLower(id)] = id
	}
	obj, ok, err := verdict(objs, broken, func(o string) bool { return checksFor(o, canon) }, `"checks"`)
	switch {
	case err != nil:
		return nil, "", err
	case !ok:
		// No object grades the requested criteria: report the last one (a judge that
		// renamed every id is told what it returned), or the first if none has checks.
		obj = objs[0]
		for _, o := range objs {
			var r reply
			if json.Unmarshal([]byte(o), &r) == nil && r.Checks != nil {
				obj = o
			}
		}
	}
	var r reply
	if err := json.Unmarshal([]byte(obj), &r); err != nil {
		return nil, "", fmt.Errorf("reply does not match the schema: %w", err)
	}
	if r.Checks == nil {
		return nil, "", errors.New(`reply has no "checks" list`)
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

// checksFor reports whether obj is a rubric verdict on the requested criteria (canon: their
// ids in lower case): a "checks" list naming at least one of them.
func checksFor(obj string, canon map[string]string) bool {
	var r reply
	if json.Unmarshal([]byte(obj), &r) != nil {
		return false
	}
	for _, raw := range r.Checks {
		var id string
		if json.Unmarshal(raw["id"], &id) == nil {
			if _, ok := canon[strings.ToLower(id)]; ok {
				return true
			}
		}
	}
	return false
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
	objs, broken, err := objects(repairBooleans(text))
	if err != nil {
		return nil, err
	}
	obj, ok, err := verdict(objs, broken, func(o string) bool {
		var raw map[string]json.RawMessage
		return json.Unmarshal([]byte(o), &raw) == nil && raw["score"] != nil
	}, `"score"`)
	if err != nil {
		return nil, err
	}
	if !ok {
		obj = objs[0]
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return nil, err
	}
	if _, ok := raw["score"]; !ok {
		return nil, errors.New(`reply has no "score"`)
	}
	var f freeform
	// The schema asks for a number: "0.8" is a reply that did not follow it (AgentV's parser
	// rejects it too), asked again rather than read as 0.8.
	var str string
	if json.Unmarshal(raw["score"], &str) == nil {
		return nil, fmt.Errorf("score is the string %q, not a number", truncate(str, 40))
	}
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
