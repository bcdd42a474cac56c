package shard

import (
	"fmt"
	"io"
	"time"

	"github.com/evalgate/evalgate/internal/result"
)

// Key names a test: its suite's path and its ID.
type Key struct{ Suite, Test string }

// Durations are a previous run's test durations by suite path and test ID, summed over the
// test's matrix rows and trials.
type Durations map[Key]time.Duration

// ReadDurations reads the durations of a results.json. Rows skipped or not run tell nothing
// about how long a test takes and are left out; a test with no other row has no duration.
func ReadDurations(r io.Reader) (Durations, error) {
	d := Durations{}
	// Each suite is dropped once counted: only the durations are kept.
	_, err := decodeRun(r, func(sr *result.SuiteResult) error {
		for _, tr := range sr.Tests {
			if tr == nil || tr.Verdict == result.Skip {
				continue
			}
			ms := tr.DurationMS
			if len(tr.Trials) > 0 {
				ms = 0
				for _, t := range tr.Trials {
					ms += t.DurationMS
				}
			}
			d[Key{sr.Path, tr.ID}] += time.Duration(ms) * time.Millisecond
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading durations: %w", err)
	}
	return d, nil
}
