package provider

// EntryError is an error about one targets entry, anchored at where the entry is written.
type EntryError struct {
	// Pos is the entry's position ("file:line:col"), Target its name.
	Pos, Target string
	Err         error
}

// Error is the message anchored at the entry's position.
func (e *EntryError) Error() string { return e.Pos + ": " + e.Unanchored() }

// Unanchored is the message without the position, for a caller that reports the position
// its own way.
func (e *EntryError) Unanchored() string { return "target " + e.Target + ": " + e.Err.Error() }

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *EntryError) Unwrap() error { return e.Err }
