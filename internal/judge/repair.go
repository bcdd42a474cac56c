package judge

import (
	"encoding/json"
	"regexp"
	"strings"
)

// boolField matches a "passed" or "satisfied" key and its value when the value is a bare word
// or a string: AgentV's repairSchemaNearBooleanFields (graders/scoring.ts), widened to
// "satisfied". Inside a JSON string the quotes around a key would be escaped, so a key quoted
// in a judge's reasoning is not matched.
var boolField = regexp.MustCompile(`(?i)("(passed|satisfied)"\s*:\s*)("(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_-]*)`)

// repairBooleans rewrites the non-boolean values judges put where the schema wants a boolean,
// before the reply is parsed:
//
//   - "passed" (a freeform assertion): AgentV turns every value but true into false, so
//     "passed": mixed (not even JSON) and "passed": "partly" become false. evalgate reads the
//     words that mean yes ("yes", "pass", "satisfied", any case) as true, where AgentV reads
//     false; the assertion is reported, it does not score.
//   - "satisfied" (a checklist criterion): a bare word (yes, True, partially) is quoted, so the
//     rest of the reply still parses; boolValue then accepts yes/no words and makes anything
//     else that criterion's error, which asks the judge again. AgentV re-asks for the whole
//     reply instead. An unclear answer is never read as satisfied.
func repairBooleans(text string) string {
	return boolField.ReplaceAllStringFunc(text, func(m string) string {
		sub := boolField.FindStringSubmatch(m)
		prefix, key, value := sub[1], strings.ToLower(sub[2]), sub[3]
		if value == "true" || value == "false" {
			return m
		}
		if key == "satisfied" {
			if strings.HasPrefix(value, `"`) {
				return m
			}
			return prefix + `"` + value + `"`
		}
		word := value
		if strings.HasPrefix(value, `"`) {
			if json.Unmarshal([]byte(value), &word) != nil {
				return m
			}
		}
		if b, ok := boolWord(word); ok && b {
			return prefix + "true"
		}
		return prefix + "false"
	})
}

// boolWord reads the words judges write for a boolean; ok is false for anything else
// ("mixed", "partially").
func boolWord(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "satisfied", "pass", "passed":
		return true, true
	case "false", "no", "unsatisfied", "fail", "failed":
		return false, true
	}
	return false, false
}
