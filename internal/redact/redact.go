// Package redact keeps credentials out of everything evalgate publishes: it decides which
// environment variables hold credentials, and scrubs their values from text before the text
// reaches a comment, a check run, the step summary, outputs or a report file.
package redact

import (
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strings"
)

// Mask replaces every scrubbed value.
const Mask = "***"

// minLen is the shortest value treated as a secret: scrubbing "1" or "ab" everywhere would
// wreck the report without protecting anything a real credential needs.
const minLen = 4

// credentialName matches variable names that hold credentials by convention: tokens, keys,
// secrets, passwords, and everything the runner passes as an input or an Actions credential.
var credentialName = regexp.MustCompile(`(?i)^(INPUT_|ACTIONS_)|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|PRIVATE|(^|_)(API_?KEY|KEY|KEYS|PAT)(_|$)`)

// IsCredentialName reports whether an environment variable name looks like it holds a
// credential (OPENAI_API_KEY, INPUT_GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, DB_PASSWORD, …).
func IsCredentialName(name string) bool { return credentialName.MatchString(name) }

// Redactor scrubs a fixed set of secret values. The zero value and nil scrub nothing.
type Redactor struct {
	r       *strings.Replacer
	secrets []string // longest first
	longest int
}

// New returns a Redactor for values (empty and very short values are ignored). Each value is
// also scrubbed in its JSON-escaped form, which is how it appears inside results.json.
func New(values ...string) *Redactor {
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
		return &Redactor{}
	}
	// Longest first, so a secret that contains another is masked whole.
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	pairs := make([]string, 0, 2*len(all))
	for _, v := range all {
		pairs = append(pairs, v, Mask)
	}
	return &Redactor{r: strings.NewReplacer(pairs...), secrets: all, longest: len(all[0])}
}

// FromEnviron returns a Redactor for the values of every credential-looking variable in
// environ ("NAME=value" pairs, as os.Environ returns them), plus extra values.
func FromEnviron(environ []string, extra ...string) *Redactor {
	values := append([]string(nil), extra...)
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && IsCredentialName(k) {
			values = append(values, v)
		}
	}
	return New(values...)
}

// Empty reports whether the Redactor has nothing to scrub.
func (r *Redactor) Empty() bool { return r == nil || r.r == nil }

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if r.Empty() {
		return s
	}
	return r.r.Replace(s)
}

// Bytes returns b with every secret replaced by Mask.
func (r *Redactor) Bytes(b []byte) []byte {
	if r.Empty() {
		return b
	}
	return []byte(r.r.Replace(string(b)))
}

// Writer scrubs what is written through it before passing it to w. It holds back the last
// few bytes of each write until it knows they do not start a secret, so Close must be called
// to flush them.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser {
	return &writer{r: r, w: w}
}

type writer struct {
	r       *Redactor
	w       io.Writer
	pending []byte
}

func (w *writer) Write(p []byte) (int, error) {
	if w.r.Empty() {
		return w.w.Write(p)
	}
	w.pending = append(w.pending, p...)
	// A secret can straddle writes: keep a tail as long as the longest secret minus one and
	// emit the scrubbed rest, cut where no secret (or start of one) crosses the cut.
	keep := w.r.longest - 1
	if len(w.pending) <= keep {
		return len(p), nil
	}
	cut := w.safeCut(len(w.pending) - keep)
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, w.r.String(string(w.pending[:cut]))); err != nil {
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
		for start := max(0, cut-w.r.longest+1); start < cut && !moved; start++ {
			for _, sec := range w.r.secrets {
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
	_, err := io.WriteString(w.w, w.r.String(string(w.pending)))
	w.pending = nil
	return err
}
