package potato

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/evalgate/evalgate/internal/calibrate"
)

// annotation is one submitted rubric of Potato's rubric_eval output:
//
//	{"trace_id": "…", "annotator": "…", "rubric": {"criteria_ratings": {"correctness": 4, …},
//	 "overall": 4, "weighted_score": 3.56, "notes": "…"}}
//
// A project with several schemes may nest each under its scheme name instead of "rubric";
// every object holding criteria_ratings is read.
type annotation struct {
	TraceID   string
	Annotator string
	// Schemes are the rubric objects by key ("rubric", or a scheme name), in key order.
	Schemes []*rubric
	// Line is the annotation's line in its file (its index + 1 in a JSON array).
	Line int
}

// rubric is one scheme's ratings in an annotation.
type rubric struct {
	Key     string
	Ratings map[string]float64
	// Overall and Weighted are nil when absent.
	Overall  *float64
	Weighted *float64
	// OverallName and WeightedName name them when the export's map did; empty otherwise.
	OverallName, WeightedName string
	// Scales are the criteria's scales when the export's map gave them, by name.
	Scales map[string]calibrate.Scale
}

// parseAnnotation reads one row; nil when it holds no rubric.
func parseAnnotation(row map[string]json.RawMessage) (*annotation, error) {
	a := &annotation{}
	var err error
	if a.Schemes, err = rubrics(row, 2); err != nil || len(a.Schemes) == 0 {
		return nil, err
	}
	a.TraceID = firstString(row, "trace_id", "instance_id", "id")
	a.Annotator = firstString(row, "annotator", "user_id")
	switch {
	case a.TraceID == "":
		return nil, errors.New(`rubric annotation has no "trace_id"`)
	case a.Annotator == "":
		return nil, fmt.Errorf(`rubric annotation of %q has no "annotator"`, a.TraceID)
	}
	return a, nil
}

// rubrics finds the objects holding criteria_ratings in row, depth levels deep, in key order.
func rubrics(row map[string]json.RawMessage, depth int) ([]*rubric, error) {
	keys := make([]string, 0, len(row))
	for k := range row {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*rubric
	for _, k := range keys {
		var obj map[string]json.RawMessage
		if json.Unmarshal(row[k], &obj) != nil {
			continue
		}
		if obj["criteria_ratings"] == nil {
			if depth > 1 {
				inner, err := rubrics(obj, depth-1)
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
			}
			continue
		}
		r, err := parseRubric(k, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// firstString is the first of keys that holds a non-empty string (or a number, as text).
func firstString(row map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if json.Unmarshal(row[k], &s) == nil && s != "" {
			return s
		}
		var n json.Number
		if json.Unmarshal(row[k], &n) == nil && n != "" {
			return n.String()
		}
	}
	return ""
}

func parseRubric(key string, obj map[string]json.RawMessage) (*rubric, error) {
	r := &rubric{Key: key, Ratings: map[string]float64{}}
	var ratings map[string]json.RawMessage
	if err := json.Unmarshal(obj["criteria_ratings"], &ratings); err != nil {
		return nil, fmt.Errorf("%s.criteria_ratings: want an object of ratings: %w", key, err)
	}
	for c, raw := range ratings {
		v, ok, err := number(raw)
		if err != nil {
			return nil, fmt.Errorf("%s.criteria_ratings.%s: %w", key, c, err)
		}
		if ok {
			r.Ratings[c] = v
		}
	}
	for field, dst := range map[string]**float64{"overall": &r.Overall, "weighted_score": &r.Weighted} {
		v, ok, err := number(obj[field])
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", key, field, err)
		}
		if ok {
			*dst = &v
		}
	}
	return r, nil
}

// number reads a rating: a JSON number or a numeric string; null or absent is no rating.
func number(raw json.RawMessage) (float64, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true, nil
		}
	}
	return 0, false, fmt.Errorf("rating %s is not a number", raw)
}

// weightedScore is Potato's weighted_score, Σ rating·weight / Σ weight over the rated criteria;
// false when no rated criterion has weight.
func weightedScore(ratings, weights map[string]float64) (float64, bool) {
	cs := make([]string, 0, len(weights))
	for c := range weights {
		cs = append(cs, c)
	}
	sort.Strings(cs) // a fixed order keeps the float sum reproducible
	var num, den float64
	for _, c := range cs {
		if r, ok := ratings[c]; ok {
			num += r * weights[c]
			den += weights[c]
		}
	}
	if den <= 0 {
		return 0, false
	}
	return num / den, true
}
