package gate

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The state travels in the check run's summary, which whoever can write a check run of that
// name on the commit can also write: another workflow or app, and with the workflow's token
// any step of it. With a key (a workflow secret only evalgate's own process holds) the block
// carries an HMAC-SHA256 over the commit and its exact bytes, so that only an evalgate holding
// the key can write a state a later partial rerun accepts, and only for that commit.

const (
	// blockPrefix opens the hidden state block; it is the last thing in a check run's summary.
	blockPrefix = "<!-- evalgate:state "
	blockSuffix = " -->"
	// macField follows the state's JSON in a signed block, before the suffix.
	macField = " hmac-sha256="
	macHex   = 2 * sha256.Size
)

// maxStateBytes bounds the state block, which shares the check run's 64 KiB summary with the
// results.
const maxStateBytes = 16 << 10

// Errors ParseBlock returns for a state it does not accept.
var (
	// ErrNoState: the summary has no state block at all (a check run from before states
	// were recorded, or not evalgate's).
	ErrNoState = errors.New("no gate state")
	// ErrUnsigned: a key is configured and the block carries no signature.
	ErrUnsigned = errors.New("the gate state is not signed")
	// errBadSignature: the block's signature is not that of this commit and state under the
	// key: the block was edited, copied from another commit or check run, or signed with another key.
	errBadSignature = errors.New("the gate state's signature does not match this commit, this check run and its content under the key")
)

// Block renders the commit's state as the hidden HTML comment appended to the summary of
// check run checkID on commit sha, signed when key is set; "" for a cancelled run, whose
// suites are unfinished.
func (c *Commit) Block(sha string, checkID int64, key string) string {
	if c.Cancelled {
		return ""
	}
	return c.State.block(sha, checkID, key)
}

// block renders s as the hidden HTML comment appended to a check run's summary on commit
// sha; with a key it ends with the HMAC of sha and the JSON. json.Marshal escapes <, > and &,
// so no path can close the comment early. A state too large to record drops the list of
// suites that ran, then gives up on per-suite verdicts: an incomplete state only makes later
// partial reruns ask for a full one.
func (s State) block(sha string, checkID int64, key string) string {
	b, _ := json.Marshal(s) // strings and maps of strings always marshal
	if len(b) > maxStateBytes {
		s.Ran = nil
		if b, _ = json.Marshal(s); len(b) > maxStateBytes {
			b, _ = json.Marshal(State{Version: stateVersion, Incomplete: true})
		}
	}
	mac := ""
	if key != "" {
		mac = macField + stateMAC(b, sha, checkID, key)
	}
	return "\n\n" + blockPrefix + string(b) + mac + blockSuffix
}

// ParseBlock reads the state block at the very end of a check run's summary on commit sha.
// Only the end counts: model text quoted earlier in the summary cannot forge it, and a
// summary that mentions the block anywhere but does not end with a whole one is refused, not
// taken for one without state. With a key the block must carry a signature that checks for
// sha (ErrUnsigned, errBadSignature); without one a signature cannot be checked and is
// ignored. ErrNoState says there is no block at all.
func ParseBlock(summary, sha string, checkID int64, key string) (*State, error) {
	summary = strings.TrimRight(summary, " \t\r\n")
	i := strings.LastIndex(summary, blockPrefix)
	if i < 0 {
		return nil, ErrNoState
	}
	if !strings.HasSuffix(summary, blockSuffix) || len(summary)-i-len(blockPrefix)-len(blockSuffix) < 0 {
		return nil, errors.New("the gate state block is cut short")
	}
	raw := summary[i+len(blockPrefix) : len(summary)-len(blockSuffix)]
	mac := ""
	if j := strings.LastIndex(raw, macField); j >= 0 && isHex(raw[j+len(macField):], macHex) {
		raw, mac = raw[:j], raw[j+len(macField):]
	}
	if key != "" {
		if mac == "" {
			return nil, ErrUnsigned
		}
		if !hmac.Equal([]byte(mac), []byte(stateMAC([]byte(raw), sha, checkID, key))) {
			return nil, errBadSignature
		}
	}
	var s State
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return nil, fmt.Errorf("the gate state block is malformed: %w", err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("the gate state has version %d, want %d", s.Version, stateVersion)
	}
	return &s, nil
}

// stateMAC is the hex HMAC-SHA256 under key of the state's JSON in check run checkID on commit
// sha, in a domain of its own (a shard's signature under the same key can never pass for one).
// The check run's ID is signed too: an older state copied into a newer check run (replayed
// over a later failure) does not check.
func stateMAC(state []byte, sha string, checkID int64, key string) string {
	h := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(h, "evalgate gate state v%d\x00%s\x00%d\x00", stateVersion, sha, checkID)
	h.Write(state)
	return hex.EncodeToString(h.Sum(nil))
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}
