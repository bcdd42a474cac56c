package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/evalgate/evalgate/internal/result"
)

// errTooLarge is what a results file past maxResultsBytes reads as: an error, never a run
// silently cut at the limit.
var errTooLarge = fmt.Errorf("larger than %d MiB", maxResultsBytes>>20)

// capReader reads r up to n bytes and fails with errTooLarge past them.
type capReader struct {
	r io.Reader
	n int64
}

func capped(r io.Reader) io.Reader { return &capReader{r: r, n: maxResultsBytes} }

func (c *capReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.n+1 {
		p = p[:c.n+1]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	if c.n < 0 {
		return 0, errTooLarge
	}
	return k, err
}

// maxResultsBytes bounds what ReadResults accepts, so a wrong --baseline path cannot eat memory.
const maxResultsBytes = 512 << 20

// ReadResults reads a results.json written by WriteResults (or WriteAll), e.g. for
// `--baseline results.json`. A file without schema_version is not ours; one with a newer
// schema_version than this build knows is refused rather than misread. Unknown fields are
// ignored: additions that do not bump the version must stay readable.
func ReadResults(r io.Reader) (*result.Run, error) {
	dec := json.NewDecoder(capped(r))
	var run result.Run
	if err := dec.Decode(&run); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("read results: empty input")
		}
		return nil, fmt.Errorf("read results: %w", err)
	}
	switch {
	case run.SchemaVersion <= 0 && dec.More():
		// One JSON object per line: AgentV's index.jsonl (or evalgate's own).
		return nil, errors.New("read results: one JSON object per line (JSONL, such as AgentV's or evalgate's index.jsonl), not an evalgate results.json: pass the results.json that evalgate run --out DIR writes (DIR/results.json)")
	case run.SchemaVersion <= 0:
		return nil, errors.New("read results: no schema_version: not an evalgate results.json")
	case run.SchemaVersion > result.SchemaVersion:
		return nil, fmt.Errorf("read results: schema_version %d is newer than this evalgate understands (%d); upgrade evalgate",
			run.SchemaVersion, result.SchemaVersion)
	}
	dropNulls(&run)
	return &run, nil
}

// dropNulls removes the null entries a hand-edited or foreign results.json may hold in its
// lists, so that every reader of the run can take its elements as non-nil.
func dropNulls(run *result.Run) {
	run.Suites = compact(run.Suites)
	for _, s := range run.Suites {
		s.Tests = compact(s.Tests)
		for _, t := range s.Tests {
			t.Graders = compactGraders(t.Graders)
			t.Turns = compact(t.Turns)
			for _, tn := range t.Turns {
				tn.Graders = compactGraders(tn.Graders)
			}
			t.Trials = compact(t.Trials)
			if t.TrialSummary != nil {
				t.TrialSummary.Criteria = compact(t.TrialSummary.Criteria)
			}
		}
	}
}

func compactGraders(gs []*result.GraderResult) []*result.GraderResult {
	gs = compact(gs)
	for _, g := range gs {
		g.Criteria = compact(g.Criteria)
		g.Members = compactGraders(g.Members)
	}
	return gs
}

// compact drops nil elements, keeping a nil list nil.
func compact[T any](xs []*T) []*T {
	return slices.DeleteFunc(xs, func(x *T) bool { return x == nil })
}

// WriteResults writes run as indented JSON (results.json), stamping the current schema version
// when the run has none so that ReadResults accepts it. It streams: each test is encoded on
// its own and written at once, so a run is never held in memory twice, and the bytes are those
// of an indenting json.Encoder given the whole run.
func WriteResults(w io.Writer, run *result.Run) error {
	if run == nil {
		run = &result.Run{}
	}
	top := *run
	if top.SchemaVersion == 0 {
		top.SchemaVersion = result.SchemaVersion
	}
	js := &jsonStream{w: &errWriter{w: w}}
	js.enc = json.NewEncoder(&js.buf)
	// Results are read by people and tools, not browsers: keep "<", ">" and "&" readable.
	js.enc.SetEscapeHTML(false)
	suites := top.Suites
	top.Suites = nil
	err := js.splice(top, "", `"suites": null`, suites == nil, len(suites), func(i int) error {
		s := suites[i]
		if s == nil {
			return js.raw("null")
		}
		one := *s
		tests := one.Tests
		one.Tests = nil
		return js.splice(one, "    ", `"tests": null`, tests == nil, len(tests), func(j int) error {
			return js.value(tests[j], "        ")
		})
	})
	if err == nil {
		err = js.raw("\n")
	}
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// jsonStream writes one JSON document piece by piece, indented by two spaces.
type jsonStream struct {
	w   *errWriter
	buf bytes.Buffer
	enc *json.Encoder
}

// encode renders v alone, at an indentation of prefix.
func (js *jsonStream) encode(v any, prefix string) ([]byte, error) {
	js.buf.Reset()
	js.enc.SetIndent(prefix, "  ")
	if err := js.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(js.buf.Bytes(), []byte("\n")), nil
}

func (js *jsonStream) value(v any, prefix string) error {
	b, err := js.encode(v, prefix)
	if err != nil {
		return err
	}
	_, _ = js.w.Write(b)
	return js.w.err
}

func (js *jsonStream) raw(s string) error {
	_, _ = io.WriteString(js.w, s)
	return js.w.err
}

// splice writes v, whose list field was emptied and so encodes as hole, with the list's n
// elements streamed in its place by elem, as if v had been encoded with them. The hole is the
// field's first occurrence: field names precede it and quotes inside strings are escaped, so
// nothing else can match. A nil list stays null.
func (js *jsonStream) splice(v any, prefix, hole string, isNil bool, n int, elem func(int) error) error {
	b, err := js.encode(v, prefix)
	if err != nil {
		return err
	}
	i := bytes.Index(b, []byte(hole))
	if i < 0 {
		return fmt.Errorf("encoding lost %s", hole)
	}
	// The encoder's buffer is reused by the elements: keep the tail.
	tail := string(b[i+len(hole):])
	_, _ = js.w.Write(b[:i+len(hole)-len("null")])
	inner := prefix + "    "
	switch {
	case isNil:
		err = js.raw("null")
	case n == 0:
		err = js.raw("[]")
	default:
		err = js.raw("[")
		for k := 0; k < n && err == nil; k++ {
			if k > 0 {
				err = js.raw(",")
			}
			if err == nil {
				err = js.raw("\n" + inner)
			}
			if err == nil {
				err = elem(k)
			}
		}
		if err == nil {
			err = js.raw("\n" + prefix + "  ]")
		}
	}
	if err != nil {
		return err
	}
	return js.raw(tail)
}
