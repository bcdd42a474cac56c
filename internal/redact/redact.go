// Package redact keeps credentials out of everything evalgate publishes: it decides which
// environment variables hold credentials, and scrubs their values from text before the text
// reaches a comment, a check run, the step summary, outputs or a report file.
package redact

import (
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Mask replaces every scrubbed value.
const Mask = "***"

// minLen is the shortest value treated as a secret: scrubbing "true" or "fail" everywhere
// would wreck the reports, and no real credential is that short.
const minLen = 8

// credentialName matches variable names that hold credentials by convention: tokens, keys,
// secrets, passwords, and everything the runner passes as an input or an Actions credential.
var credentialName = regexp.MustCompile(`(?i)^(INPUT_|ACTIONS_)|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|PRIVATE|(^|_)(API_?KEY|ACCESS_?KEY|KEY|KEYS|PAT|AUTH|AUTHORIZATION)(_|$)`)

// IsCredentialName reports whether an environment variable name looks like it holds a
// credential (OPENAI_API_KEY, INPUT_GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, DB_PASSWORD, …).
func IsCredentialName(name string) bool { return credentialName.MatchString(name) }

// Redactor scrubs a set of secret values, which may grow (Add) as credentials are found.
// It is safe for concurrent use. The zero value and nil scrub nothing.
type Redactor struct {
	mu      sync.RWMutex
	values  []string // as given to New and Add
	r       *strings.Replacer
	secrets []string // the forms scrubbed, longest first
	longest int
}

// New returns a Redactor for values (empty and very short values are ignored). Each value is
// also scrubbed in its JSON-escaped form, which is how it appears inside results.json.
func New(values ...string) *Redactor {
	r := &Redactor{}
	r.Add(values...)
	return r
}

// Add extends the set of values scrubbed from now on.
func (r *Redactor) Add(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.values = append(r.values, values...)
	r.r, r.secrets, r.longest = build(r.values)
}

// build makes the replacer for values.
func build(values []string) (*strings.Replacer, []string, int) {
	seen := map[string]bool{}
	var all []string
	add := func(v string) {
		if len(v) >= minLen && !seen[v] {
			seen[v] = true
			all = append(all, v)
		}
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		add(v)
		if b, err := json.Marshal(v); err == nil {
			add(string(b[1 : len(b)-1]))
		}
	}
	if len(all) == 0 {
		return nil, nil, 0
	}
	// Longest first, so a secret that contains another is masked whole.
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, Mask)
	}
	return strings.NewReplacer(pairs...), all, len(all[0])
}

// fromEnviron returns a Redactor for Credentials(environ) plus extra values.
func fromEnviron(environ []string, extra ...string) *Redactor {
	return New(append(Credentials(environ), extra...)...)
}

// Credentials returns the values of every credential-looking variable in environ
// ("NAME=value" pairs, as os.Environ returns them). The runner's INPUT_ and ACTIONS_ prefixes
// are set aside first: INPUT_CHECK_NAME holds a check's name, INPUT_GITHUB_TOKEN a token.
func Credentials(environ []string) []string {
	var values []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if rest, found := cutPrefixFold(k, "INPUT_", "ACTIONS_"); found {
			k = rest
		}
		if IsCredentialName(k) && len(strings.TrimSpace(v)) >= minLen {
			values = append(values, v)
		}
	}
	return values
}

// cutPrefixFold strips the first of prefixes that s starts with, ignoring case.
func cutPrefixFold(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
			return s[len(p):], true
		}
	}
	return s, false
}

// Has reports whether v is one of the values scrubbed (as given, spaces trimmed): a value
// evalgate holds as a credential.
func (r *Redactor) Has(v string) bool {
	_, secrets, _ := r.state()
	v = strings.TrimSpace(v)
	return len(v) >= minLen && slices.Contains(secrets, v)
}

// empty reports whether the Redactor has nothing to scrub.
func (r *Redactor) empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.r == nil
}

// state is a consistent snapshot of what is scrubbed.
func (r *Redactor) state() (*strings.Replacer, []string, int) {
	if r == nil {
		return nil, nil, 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.r, r.secrets, r.longest
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if rep, _, _ := r.state(); rep != nil {
		return rep.Replace(s)
	}
	return s
}

// Bytes returns b with every secret replaced by Mask.
func (r *Redactor) Bytes(b []byte) []byte {
	if rep, _, _ := r.state(); rep != nil {
		return []byte(rep.Replace(string(b)))
	}
	return b
}

// Writer scrubs what is written through it before passing it to w. It holds back the last
// few bytes of each write until it knows they do not start a secret, so Close must be called
// to flush them.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser {
	rep, secrets, longest := r.state()
	return &writer{rep: rep, secrets: secrets, longest: longest, w: w}
}

// writer scrubs with a snapshot of the Redactor taken when it was made.
type writer struct {
	rep     *strings.Replacer
	secrets []string
	longest int
	w       io.Writer
	pending []byte
}

func (w *writer) Write(p []byte) (int, error) {
	if w.rep == nil {
		return w.w.Write(p)
	}
	w.pending = append(w.pending, p...)
	// A secret can straddle writes: keep a tail as long as the longest secret minus one and
	// emit the scrubbed rest, cut where no secret (or start of one) crosses the cut.
	keep := w.longest - 1
	if len(w.pending) <= keep {
		return len(p), nil
	}
	cut := w.safeCut(len(w.pending) - keep)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, w.rep.Replace(string(w.pending[:cut]))); err != nil {
		return 0, err
	}
	w.pending = append(w.pending[:0], w.pending[cut:]...)
	return len(p), nil
}

// safeCut moves cut back until no secret, or prefix of one, that begins before cut reaches
// past it: scrubbing pending[:cut] alone then gives the same text as scrubbing the stream.
func (w *writer) safeCut(cut int) int {
	s := string(w.pending)
	for {
		moved := false
		for start := max(0, cut-w.longest+1); start < cut && !moved; start++ {
			for _, sec := range w.secrets {
				end := min(len(s), start+len(sec))
				if end > cut && strings.HasPrefix(sec, s[start:end]) {
					cut, moved = start, true
					break
				}
			}
		}
		if !moved || cut == 0 {
			return cut
		}
	}
}

func (w *writer) Close() error {
	if len(w.pending) == 0 {
		return nil
	}
	s := string(w.pending)
	if w.rep != nil {
		s = w.rep.Replace(s)
	}
	_, err := io.WriteString(w.w, s)
	w.pending = nil
	return err
}
