package backoff

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads an HTTP Retry-After value, delay-seconds or an HTTP date, as the wait
// from now. Fractional seconds are accepted (some vendors send them). It returns 0 when the
// value is empty, malformed or not in the future: the server did not say.
//
// Docs: https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case !(s > 0): // zero, negative or NaN
			return 0
		case s >= math.MaxInt64/float64(time.Second):
			// Still a wait longer than any MaxWait, not an overflow into a negative one.
			return math.MaxInt64
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
