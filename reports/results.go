package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evalgate/evalgate/internal/result"
)

// maxResultsBytes bounds what ReadResults accepts, so a wrong --baseline path cannot eat memory.
const maxResultsBytes = 512 << 20

// ReadResults reads a results.json written by WriteResults (or WriteAll), e.g. for
// `--baseline results.json`. A file without schema_version is not ours; one with a newer
// schema_version than this build knows is refused rather than misread. Unknown fields are
// ignored: additions that do not bump the version must stay readable.
func ReadResults(r io.Reader) (*result.Run, error) {
	dec := json.NewDecoder(io.LimitReader(r, maxResultsBytes))
	var run result.Run
	if err := dec.Decode(&run); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("read results: empty input")
		}
		return nil, fmt.Errorf("read results: %w", err)
	}
	switch {
	case run.SchemaVersion <= 0:
		return nil, errors.New("read results: no schema_version: not an evalgate results.json")
	case run.SchemaVersion > result.SchemaVersion:
		return nil, fmt.Errorf("read results: schema_version %d is newer than this evalgate understands (%d); upgrade evalgate",
			run.SchemaVersion, result.SchemaVersion)
	}
	return &run, nil
}

// WriteResults writes run as indented JSON (results.json), stamping the current schema version
// when the run has none so that ReadResults accepts it.
func WriteResults(w io.Writer, run *result.Run) error {
	if run == nil {
		run = &result.Run{}
	}
	if run.SchemaVersion == 0 {
		cp := *run
		cp.SchemaVersion = result.SchemaVersion
		run = &cp
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Results are read by people and tools, not browsers: keep "<", ">" and "&" readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(run); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}
