package llm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
)

// UnreachableError is an endpoint that could not be reached at all: the connection was refused
// (a local server that is down) or the host name does not resolve. Unlike a timeout or a 5xx,
// waiting does not fix it, so the retry layer asks again only once, and the engine stops the
// run instead of letting every test meet the same refusal.
type UnreachableError struct {
	Provider string
	Model    string
	// Host is the address that refused (host:port) or the name that did not resolve.
	Host string
	// Reason is "connection refused" or "no such host".
	Reason   string
	Attempts int
	Err      error
}

// Error says the endpoint could not be reached, and why.
func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s %s: cannot reach %s: %s (after %d attempt(s); is the server running and base_url right?)",
		e.Provider, e.Model, e.Host, e.Reason, max(e.Attempts, 1))
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *UnreachableError) Unwrap() error { return e.Err }

// Unreachable says whether err means the endpoint cannot be reached at all, and names the
// host and the reason. Other network errors (timeouts, resets) are not: they pass.
func Unreachable(err error) (host, reason string, ok bool) {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return dns.Name, "no such host", true
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return "", "", false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Addr != nil {
		return op.Addr.String(), "connection refused", true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			return u.Host, "connection refused", true
		}
	}
	return "the endpoint", "connection refused", true
}
