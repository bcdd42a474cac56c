package suite

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/internal/fsroot"
)

// Helpers only tests use: loading from bytes and the default root, and the unset-variable
// error of one setting (what the loader records in Unset and keyPos, spelled out).

// parse reads an eval file's content; path names it in diagnostics and anchors relative paths.
func parse(data []byte, path string, opts LoadOptions) (*Suite, Diagnostics) {
	return newReader(path, opts).parseData(data, path)
}

func (r *reader) parseData(data []byte, path string) (s *Suite, ds Diagnostics) {
	defer r.finishLoad(&s, &ds)
	if err := fsroot.CheckText(data); err != nil {
		r.reportf("%v", err)
		return nil, r.diags
	}
	return r.parse(data, path)
}

// loadTargets parses a targets.yaml with the root fsroot.Default assumes (the product always
// names the root).
func loadTargets(path string, getenv func(string) string) (*TargetsFile, Diagnostics) {
	return LoadTargetsWith(path, LoadOptions{Getenv: getenv})
}

// unsetError is the error for a setting whose ${{ VAR }} was not set, nil when it was (or
// when the setting interpolated nothing): "targets.yaml:4:5: target gpt: api_key:
// ${{ MY_KEY }} is not set (set the MY_KEY environment variable)".
func (t *TargetConfig) unsetError(key string) error {
	v, ok := t.Unset[key]
	if !ok {
		return nil
	}
	pos, ok := t.keyPos[strings.SplitN(key, ".", 2)[0]]
	if !ok {
		pos = t.Pos
	}
	return fmt.Errorf("%s: target %s: %s: ${{ %s }} is not set (set the %s environment variable)", pos, t.Name, key, v, v)
}
