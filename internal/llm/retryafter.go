package llm

import (
	"net/http"
	"strconv"
	"time"

	"github.com/evalgate/evalgate/internal/backoff"
)

// RetryAfter reads a vendor's requested wait: retry-after-ms (OpenAI, Anthropic) wins over
// Retry-After, which is either seconds or an HTTP date. 0 means the server did not say.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	return backoff.ParseRetryAfter(h.Get("Retry-After"), now)
}
