package shard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// KeyEnv names the variable a workflow sets, from one repository secret, in every shard job
// and in the merge job: shards then sign their partial results with it and the merge
// refuses a shard whose signature does not check. No user command inherits it (their
// environment is allow-listed, evalgate is not dumpable), so an agent that writes its
// shard's files cannot sign them, even running as evalgate's own unprivileged user.
const KeyEnv = "EVALGATE_SHARD_KEY"

// minKeyLen is the shortest key accepted.
const minKeyLen = 16

// CheckKey refuses a key too short to keep forgers out; "" (no key) is fine.
func CheckKey(key string) error {
	if key != "" && len(key) < minKeyLen {
		return fmt.Errorf("%s is %d bytes, want at least %d", KeyEnv, len(key), minKeyLen)
	}
	return nil
}

// Sign sets m.MAC over the manifest's identity (shard, commit, plan fingerprint) and the
// results file in dir as written; with no key it does nothing.
func Sign(m *Manifest, dir, key string) error {
	if key == "" {
		return nil
	}
	sum, err := fileSHA256(filepath.Join(dir, ResultsFile))
	if err != nil {
		return fmt.Errorf("sign shard %s: %w", m.Shard, err)
	}
	m.MAC = manifestMAC(m, sum, key)
	return nil
}

// verify checks a shard's signature against key: nil when it checks.
func verify(s shardDir, key string) error {
	if s.m.MAC == "" {
		return fmt.Errorf("its %s is not signed, and this merge has %s: it was not written by an evalgate holding the workflow's key", ManifestFile, KeyEnv)
	}
	sum, err := fileSHA256(filepath.Join(s.dir, ResultsFile))
	if errors.Is(err, os.ErrNotExist) {
		// A shard signs its manifest only after writing its results: a signed manifest
		// without them was not written by it, and its commit and plan must not be trusted.
		return fmt.Errorf("its %s is signed but it has no %s: a shard signs only after writing its results", ManifestFile, ResultsFile)
	}
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(s.m.MAC), []byte(manifestMAC(s.m, sum, key))) {
		return fmt.Errorf("its signature does not match its %s and %s under %s: they were changed or written by something other than the shard's evalgate", ManifestFile, ResultsFile, KeyEnv)
	}
	return nil
}

// signed keeps the shards whose signature checks and refuses the others.
func signed(found []shardDir, key string, rep *Report) []shardDir {
	var kept []shardDir
	for _, s := range found {
		if err := verify(s, key); err != nil {
			rep.Refused = append(rep.Refused, Refusal{Shard: s.m.Shard, Dir: s.dir, Reason: err.Error()})
			continue
		}
		kept = append(kept, s)
	}
	return kept
}

func manifestMAC(m *Manifest, resultsSum []byte, key string) string {
	h := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(h, "evalgate shard v%d\x00%d/%d\x00%s\x00%s\x00", manifestVersion, m.Shard.Index, m.Shard.Count, m.SHA, m.Plan.Fingerprint)
	h.Write(resultsSum)
	return hex.EncodeToString(h.Sum(nil))
}

func fileSHA256(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
