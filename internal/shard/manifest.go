package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestFile is the manifest's name, next to a shard's results.json.
const ManifestFile = "shard.json"

// ResultsFile is the results a shard writes, the same name an unsharded run uses.
const ResultsFile = "results.json"

// manifestVersion is the version of the manifest's JSON.
const manifestVersion = 1

// Manifest says which shard of which split a directory's results.json is.
type Manifest struct {
	Version int  `json:"version"`
	Shard   Spec `json:"shard"`
	// SHA is the commit the shard graded ("" when unknown).
	SHA  string `json:"sha,omitempty"`
	Plan *Plan  `json:"plan"`
	// MAC, when the shard held the workflow's KeyEnv, signs the shard, commit, fingerprint
	// and results.json (Sign).
	MAC string `json:"mac,omitempty"`
}

// WriteManifest writes m to dir/shard.json. Version is set when left zero.
func WriteManifest(dir string, m Manifest) error {
	if m.Version == 0 {
		m.Version = manifestVersion
	}
	if m.Plan == nil {
		return errors.New("writing shard manifest: no plan")
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("writing shard manifest: %w", err)
	}
	// Through a temporary file and a rename: a shard killed while writing leaves no
	// manifest (it is then missing, and its tests are errors), never half a one.
	tmp, err := os.CreateTemp(dir, "."+ManifestFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing shard manifest: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, ManifestFile))
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing shard manifest: %w", werr)
	}
	return nil
}

// readManifest reads and checks a shard.json: a known version, a valid shard of the plan's
// count, and a plan whose fingerprint matches its content.
func readManifest(path string) (*Manifest, error) {
	var m Manifest
	if err := decodeFile(path, &m); err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("shard manifest %s: %w", path, err)
	}
	if m.Plan.fingerprint() != m.Plan.Fingerprint {
		return nil, fmt.Errorf("shard manifest %s: the plan does not match its fingerprint (the file was changed after the shard wrote it)", path)
	}
	return &m, nil
}

// readHead reads a shard.json without its plan's suites: enough to check that shards agree,
// without decoding a plan per shard when one will do.
func readHead(path string) (*Manifest, error) {
	var head struct {
		Manifest
		Plan struct {
			Version     int    `json:"version"`
			Count       int    `json:"count"`
			Fingerprint string `json:"fingerprint"`
			Salt        string `json:"salt"`
		} `json:"plan"`
	}
	if err := decodeFile(path, &head); err != nil {
		return nil, err
	}
	m := head.Manifest
	m.Plan = &Plan{Version: head.Plan.Version, Count: head.Plan.Count, Fingerprint: head.Plan.Fingerprint, Salt: head.Plan.Salt}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("shard manifest %s: %w", path, err)
	}
	return &m, nil
}

func decodeFile(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading shard manifest: %w", err)
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(v); err != nil {
		return fmt.Errorf("reading shard manifest %s: %w", path, err)
	}
	return nil
}

func (m *Manifest) check() error {
	switch {
	case m.Version != manifestVersion:
		return fmt.Errorf("version %d, this evalgate reads %d: merge with the evalgate that ran the shards", m.Version, manifestVersion)
	case m.Plan == nil:
		return errors.New("no plan")
	case m.Plan.Version != planVersion:
		return fmt.Errorf("plan version %d, this evalgate reads %d: merge with the evalgate that ran the shards", m.Plan.Version, planVersion)
	case m.Shard.Count != m.Plan.Count:
		return fmt.Errorf("shard %s of a plan for %d shards", m.Shard, m.Plan.Count)
	}
	if err := m.Shard.check(); err != nil {
		return fmt.Errorf("shard %s: %w", m.Shard, err)
	}
	return nil
}
