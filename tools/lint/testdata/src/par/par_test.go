package par

import "testing"

// paralleltest is not enabled in the config: this test's missing t.Parallel is not reported.
func TestSequential(t *testing.T) {}

// ST1003 (underscores in names) is off in the default staticcheck checks: not reported.
func snake_case() {}
