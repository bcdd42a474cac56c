package potato

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/jsonl"
)

// Formats of an annotation file.
const (
	FormatUserState = "potato user_state.json"
	FormatExport    = "potato export (instance_id, user_id, labels)"
	formatRows      = "rubric rows (trace_id, annotator, criteria_ratings)"
)

// readFile reads one annotation file in whichever format it holds: a user_state.json Potato
// saved, the records of Potato's export (python -m potato.export --format jsonl), or the
// tutorial's rubric rows. m maps Potato's scheme and criterion names and stored positions back
// to the suite's criteria; without it Potato's ratings are skipped (a stored "2" is a column,
// not a score). The Source says what was read and what was skipped and why.
func readFile(data []byte, path string, m *Map) ([]*annotation, *calibrate.Source, error) {
	src := &calibrate.Source{Path: path}
	t := bytes.TrimSpace(data)
	var one map[string]json.RawMessage
	if len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &one) == nil {
		if raw, ok := one["instance_id_to_label_to_value"]; ok {
			src.Format = FormatUserState
			anns, err := readUserState(one, raw, m, src)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
			return anns, src, nil
		}
	}
	var out []*annotation
	add := func(line int, row *map[string]json.RawMessage) error {
		a, err := readRow(*row, m, src)
		if err != nil || a == nil {
			return err
		}
		a.Line = line
		out = append(out, a)
		return nil
	}
	switch {
	case len(t) > 0 && t[0] == '[':
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(t, &rows); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		for i := range rows {
			if err := add(i+1, &rows[i]); err != nil {
				return nil, nil, fmt.Errorf("%s: item %d: %w", path, i+1, err)
			}
		}
	case one != nil:
		if err := add(1, &one); err != nil {
			return nil, nil, fmt.Errorf("%s:1: %w", path, err)
		}
	default:
		if err := jsonl.Each(data, path, add); err != nil {
			return nil, nil, err
		}
	}
	return out, src, nil
}

// readRow reads one row of Potato's export or of the tutorial's format; nil when it holds no
// rubric ratings.
func readRow(row map[string]json.RawMessage, m *Map, src *calibrate.Source) (*annotation, error) {
	if _, ok := row["labels"]; ok && row["instance_id"] != nil {
		src.Format = FormatExport
		var labels map[string]map[string]json.RawMessage
		if err := json.Unmarshal(row["labels"], &labels); err != nil {
			return nil, fmt.Errorf("labels: want an object of schemes: %w", err)
		}
		a := &annotation{TraceID: firstString(row, "instance_id"), Annotator: firstString(row, "user_id")}
		if a.Annotator == "" {
			return nil, fmt.Errorf("annotation of %q has no \"user_id\"", a.TraceID)
		}
		a.Schemes = fromPotato(labels, m, src)
		if len(a.Schemes) == 0 {
			return nil, nil
		}
		return a, nil
	}
	if row["turns"] != nil && row["trace_id"] != nil && row["criteria_ratings"] == nil {
		src.Skip("an exported trace (the project's data file), not a rating", 1)
		return nil, nil
	}
	a, err := parseAnnotation(row)
	if err != nil {
		return nil, err
	}
	if a == nil {
		src.Skip("row holds neither Potato labels nor criteria_ratings", 1)
		return nil, nil
	}
	if src.Format == "" {
		src.Format = formatRows
	}
	for _, r := range a.Schemes {
		src.Ratings += len(r.Ratings)
		for _, p := range []*float64{r.Overall, r.Weighted} {
			if p != nil {
				src.Ratings++
			}
		}
	}
	return a, nil
}

// readUserState reads the labels of one user_state.json: per instance, a list of
// [{"schema": …, "name": …}, value] pairs (the dict form older servers wrote is read too).
func readUserState(state map[string]json.RawMessage, raw json.RawMessage, m *Map, src *calibrate.Source) ([]*annotation, error) {
	user := firstString(state, "user_id")
	if user == "" {
		return nil, errors.New(`user state has no "user_id"`)
	}
	var byInstance map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byInstance); err != nil {
		return nil, fmt.Errorf("instance_id_to_label_to_value: want an object by instance: %w", err)
	}
	ids := make([]string, 0, len(byInstance))
	for id := range byInstance {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []*annotation
	for _, id := range ids {
		labels := map[string]map[string]json.RawMessage{}
		var pairs [][2]json.RawMessage
		if err := json.Unmarshal(byInstance[id], &pairs); err == nil {
			for _, p := range pairs {
				var l struct{ Schema, Name string }
				if json.Unmarshal(p[0], &l) != nil || l.Schema == "" {
					src.Skip("label without a schema", 1)
					continue
				}
				if labels[l.Schema] == nil {
					labels[l.Schema] = map[string]json.RawMessage{}
				}
				labels[l.Schema][l.Name] = p[1]
			}
		} else if err := json.Unmarshal(byInstance[id], &labels); err != nil {
			return nil, fmt.Errorf("instance_id_to_label_to_value[%q]: want [[label, value], …]: %w", id, err)
		}
		if ss := fromPotato(labels, m, src); len(ss) > 0 {
			out = append(out, &annotation{TraceID: id, Annotator: user, Schemes: ss})
		}
	}
	return out, nil
}

// fromPotato maps one instance's stored labels, scheme → criterion → position, back to the
// judge's criteria and scale by the export's map, counting what it read and skipped.
func fromPotato(labels map[string]map[string]json.RawMessage, m *Map, src *calibrate.Source) []*rubric {
	schemes := make([]string, 0, len(labels))
	for s := range labels {
		schemes = append(schemes, s)
	}
	sort.Strings(schemes)
	var out []*rubric
	for _, s := range schemes {
		vals := labels[s]
		if m == nil {
			src.Skip("no "+MapFile+" of the export in the file's directory or above it, so Potato's stored positions cannot be mapped to the judge's scale", len(vals))
			continue
		}
		sm := m.Schemes[s]
		if sm == nil {
			src.Skip(fmt.Sprintf("scheme %q is not one the export wrote", s), len(vals))
			continue
		}
		r := &rubric{Key: sm.Grader, Ratings: map[string]float64{}, Scales: map[string]calibrate.Scale{}}
		names := make([]string, 0, len(vals))
		for n := range vals {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			name, ok := sm.Criteria[n]
			if n == overallKey && sm.Overall != "" {
				name, ok = sm.Overall, true
			}
			if !ok {
				src.Skip(fmt.Sprintf("criterion %q is not in the export's scheme %q", n, s), 1)
				continue
			}
			pos, ok := position(vals[n])
			if !ok || pos < 1 || pos > sm.Max-sm.Min+1 {
				src.Skip(fmt.Sprintf("value %s of %s:%s is not a column 1–%d", vals[n], s, n, sm.Max-sm.Min+1), 1)
				continue
			}
			v := float64(sm.Min + pos - 1)
			src.Ratings++
			r.Scales[name] = calibrate.Scale{Min: float64(sm.Min), Max: float64(sm.Max)}
			if n == overallKey && sm.Overall != "" {
				r.Overall, r.OverallName = &v, name
				continue
			}
			r.Ratings[name] = v
		}
		if len(sm.Weights) > 0 && sm.Weighted != "" {
			w := map[string]float64{}
			for n, wt := range sm.Weights {
				w[sm.Criteria[n]] = wt
			}
			if ws, ok := weightedScore(r.Ratings, w); ok {
				r.Weighted, r.WeightedName = &ws, sm.Weighted
				r.Scales[sm.Weighted] = calibrate.Scale{Min: float64(sm.Min), Max: float64(sm.Max)}
			}
		}
		if len(r.Ratings) > 0 || r.Overall != nil {
			out = append(out, r)
		}
	}
	return out
}

// position reads a stored column: Potato saves it as a string, "1" … "n".
func position(raw json.RawMessage) (int, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	var n int
	return n, json.Unmarshal(raw, &n) == nil
}

// findMap finds the export's map for an annotation file: evalgate.json in the file's directory
// or the nearest one above it (a project's annotation_output/<user>/user_state.json is two
// levels below it). It returns nil and no error when there is none.
func findMap(path string) (*Map, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("find %s: %w", MapFile, err)
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, MapFile)
		data, err := os.ReadFile(p)
		switch {
		case err == nil:
			m := &Map{}
			if err := json.Unmarshal(data, m); err != nil {
				return nil, "", fmt.Errorf("read %s: %w", p, err)
			}
			return m, p, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, "", fmt.Errorf("read %s: %w", p, err)
		}
		if filepath.Dir(dir) == dir {
			return nil, "", nil
		}
	}
}

// ratingKey names one rating: who rated which item on which criterion.
type ratingKey struct{ item, rater, scheme, criterion string }

// dedupe drops ratings already in seen (a user_state.json and Potato's export of it hold the
// same ratings, and a directory holds both), adds the rest to seen and tells src.
func dedupe(anns []*annotation, seen map[ratingKey]bool, src *calibrate.Source) []*annotation {
	var out []*annotation
	dropped := 0
	for _, a := range anns {
		var keep []*rubric
		for _, r := range a.Schemes {
			for c := range r.Ratings {
				k := ratingKey{a.TraceID, a.Annotator, r.Key, c}
				if seen[k] {
					delete(r.Ratings, c)
					dropped++
				}
				seen[k] = true
			}
			if r.Overall != nil {
				k := ratingKey{a.TraceID, a.Annotator, r.Key, "\x00overall"}
				if seen[k] {
					r.Overall = nil
					dropped++
				}
				seen[k] = true
			}
			if r.Weighted != nil {
				// Computed from ratings, so not counted as one; but one rater's weighted
				// score of an item counts once, even when two files overlap only in part.
				k := ratingKey{a.TraceID, a.Annotator, r.Key, "\x00weighted"}
				if seen[k] || len(r.Ratings) == 0 {
					r.Weighted = nil
				}
				seen[k] = true
			}
			if len(r.Ratings) > 0 || r.Overall != nil || r.Weighted != nil {
				keep = append(keep, r)
			}
		}
		if len(keep) > 0 {
			a.Schemes = keep
			out = append(out, a)
		}
	}
	if dropped > 0 {
		src.Ratings -= dropped
		src.Skip("already read from another file (same rater, item, scheme and criterion)", dropped)
	}
	return out
}

// newSeen is an empty set of ratings for dedupe.
func newSeen() map[ratingKey]bool { return map[ratingKey]bool{} }
