package main

import (
	"strings"
	"testing"
)

func TestParseConfigRefusesWhatItDoesNotApply(t *testing.T) {
	t.Parallel()
	const head = "version: \"2\"\nlinters:\n  default: none\n"
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"ok", head + "  enable: [errorlint]\n", ""},
		{"unknown key", head + "  enable: [errorlint]\nrun:\n  timeout: 5m\n", "field run not found"},
		{"unknown setting", head + "  settings:\n    errorlint:\n      asserts: false\n", "field errorlint not found"},
		{"unknown linter", head + "  enable: [gocritic]\n", `linter "gocritic" is not one this tool runs`},
		{"version 1", "linters:\n  default: none\n", `version ""`},
		{"default standard", "version: \"2\"\nlinters:\n  default: standard\n", `linters.default "standard"`},
		{"rule without a condition", head + "  exclusions:\n    rules:\n      - linters: [errorlint]\n", "needs path, path-except or text"},
		{"bad regexp", head + "  exclusions:\n    rules:\n      - path: \"(\"\n", "compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseConfig([]byte(tt.yaml))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parseConfig: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("parseConfig error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckEnabled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		checks []string
		name   string
		want   bool
	}{
		{defaultStaticcheckChecks, "SA4006", true},
		{defaultStaticcheckChecks, "QF1008", true},
		{defaultStaticcheckChecks, "ST1003", false},
		{[]string{"all", "-S*"}, "S1002", false},
		{[]string{"all", "-S*"}, "SA1000", true}, // S* is the category S, not a prefix of SA
		{[]string{"all", "-SA1*"}, "SA1000", false},
		{[]string{"all", "-SA1*"}, "SA4006", true},
		{[]string{"SA4006"}, "SA4006", true},
		{[]string{"SA4006"}, "SA4005", false},
	}
	for _, tt := range tests {
		if got := checkEnabled(tt.checks, tt.name); got != tt.want {
			t.Errorf("checkEnabled(%q, %s) = %v, want %v", tt.checks, tt.name, got, tt.want)
		}
	}
}
