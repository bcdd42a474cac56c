package safetext

import "unicode/utf8"

// Truncate cuts s to at most maxBytes bytes without splitting a rune, so a cut never leaves a
// broken character at the end of a message, cell or API field. Invalid bytes are kept as they
// are: only a valid multi-byte rune crossing the limit is dropped whole.
func Truncate(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	if maxBytes <= 0 {
		return ""
	}
	cut := maxBytes
	if start, _, ok := straddle(s, cut); ok {
		cut = start
	}
	return s[:cut]
}

// TruncateMark is Truncate that marks a cut with mark (e.g. "…"), the mark counting towards
// maxBytes. When even the mark does not fit, s is cut bare.
func TruncateMark(s string, maxBytes int, mark string) string {
	if len(s) <= maxBytes {
		return s
	}
	if maxBytes < len(mark) {
		return Truncate(s, maxBytes)
	}
	return Truncate(s, maxBytes-len(mark)) + mark
}

// TruncateStart keeps the last maxBytes bytes of s without splitting a rune: the end of an
// error output is where its cause is.
func TruncateStart(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	if maxBytes <= 0 {
		return ""
	}
	cut := len(s) - maxBytes
	if _, end, ok := straddle(s, cut); ok {
		cut = end
	}
	return s[cut:]
}

// TruncateRunes cuts s to at most maxRunes runes, for limits counted in characters.
func TruncateRunes(s string, maxRunes int) string {
	if maxRunes <= 0 {
		return ""
	}
	n := 0
	for i := range s {
		if n == maxRunes {
			return s[:i]
		}
		n++
	}
	return s
}

// straddle finds the valid rune that starts before cut and ends after it, if any. Invalid
// bytes are no rune: a cut through them splits nothing.
func straddle(s string, cut int) (start, end int, ok bool) {
	for j := cut - 1; j >= 0 && cut-j < utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if (r != utf8.RuneError || size > 1) && j+size > cut {
				return j, j + size, true
			}
			return 0, 0, false
		}
	}
	return 0, 0, false
}
