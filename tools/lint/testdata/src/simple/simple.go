package simple

// IsOn is a finding of S1002, which the default checks enable.
func IsOn(b bool) bool {
	if b == true { // want `^should omit comparison to bool constant.* \(staticcheck S1002\)$`
		return true
	}
	return false
}
