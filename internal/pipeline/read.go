package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalgate/evalgate/internal/result"
	"github.com/evalgate/evalgate/reports"
)

// ReadResults reads a finished run's results.json: a baseline, or the run a report, an export
// or a calibration is made from.
func ReadResults(path string) (*result.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	run, err := reports.ReadResults(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// ReadRun reads a results.json or an AgentV index.jsonl (by its extension), or the one a
// directory holds (results.json first), and returns the file it read.
func ReadRun(path string) (*result.Run, string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		found := ""
		for _, name := range []string{reports.FileResults, reports.FileIndex} {
			if _, err := os.Stat(filepath.Join(path, name)); err == nil {
				found = filepath.Join(path, name)
				break
			}
		}
		if found == "" {
			return nil, path, fmt.Errorf("%s holds neither results.json nor index.jsonl", path)
		}
		path = found
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, path, fmt.Errorf("%s: no such file", path)
		}
		return nil, path, err
	}
	defer f.Close()
	var run *result.Run
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		run, err = reports.ReadIndex(f)
	} else {
		run, err = reports.ReadResults(f)
	}
	if err != nil {
		return nil, path, fmt.Errorf("%s: %w", path, err)
	}
	return run, path, nil
}
