package unused

func helper() {} // want `^func helper is unused \(unused\)$`

// Used is exported, so used.
func Used() {}
