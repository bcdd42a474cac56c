package errs

import "errors"

var errSentinel = errors.New("sentinel")

func isSentinel(err error) bool {
	return err == errSentinel // want `^comparing with == will fail on wrapped errors.* \(errorlint\)$`
}

// The text rule excludes errorlint's type-assertion findings, and only those.
func asType(err error) bool {
	_, ok := err.(interface{ Timeout() bool })
	return ok
}
