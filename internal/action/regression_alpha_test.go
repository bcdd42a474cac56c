package action

import (
	"strings"
	"testing"
)

func TestRegressionAlphaInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		want  float64
		err   string
	}{
		{"", 0, ""},
		{" 0.01 ", 0.01, ""},
		{"0", 0, "regression_alpha must be a number between 0 and 1"},
		{"1", 0, "regression_alpha must be a number between 0 and 1"},
		{"five percent", 0, "regression_alpha must be a number between 0 and 1"},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			in, err := parseInputs(func(k string) string {
				if k == "regression_alpha" {
					return tc.value
				}
				return ""
			})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || in.RegressionAlpha != tc.want {
				t.Fatalf("alpha %v err %v, want %v", in.RegressionAlpha, err, tc.want)
			}
		})
	}
}
