package potato

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/calibrate"
	"github.com/evalgate/evalgate/internal/result"
)

// Calibrate reads the human ratings in the annotation files paths name (readPaths: read is
// told what each file gave), pairs them with the judge's ratings in run (nil: no judge, the
// humans' agreement alone) and measures the agreement at the thresholds th.
func Calibrate(run *result.Run, paths []string, th calibrate.Thresholds, read func(src *calibrate.Source, mapPath string)) (*calibrate.Report, error) {
	anns, sources, files, err := readPaths(paths, read)
	if err != nil {
		return nil, err
	}
	if len(anns) == 0 {
		return nil, fmt.Errorf("no rubric ratings in %s (Potato's user_state.json or export records under a project evalgate export wrote, or rows with criteria_ratings)", strings.Join(files, ", "))
	}
	humansOnly := run == nil
	if humansOnly {
		// Without results there is no judge: an empty run pairs every rating with nothing.
		run = &result.Run{}
	}
	in := pair(run, anns)
	in.Thresholds, in.HumansOnly, in.Sources = th, humansOnly, sources
	return calibrate.Compute(in), nil
}
