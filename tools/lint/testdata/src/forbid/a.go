package forbid

import "reflect"

// Production code may compare with reflect.DeepEqual: forbidigo's rule has path-except _test.go.
func same(a, b []int) bool { return reflect.DeepEqual(a, b) }
