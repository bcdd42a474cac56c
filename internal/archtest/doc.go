// Package archtest holds no code: its test loads the module's import graph and fails when a
// dependency arrow of ARCHITECTURE.md breaks. The rules and the known-debt exceptions are the
// tables in arch_test.go.
package archtest
