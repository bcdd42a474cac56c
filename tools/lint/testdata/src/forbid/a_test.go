package forbid

import (
	"reflect"
	"testing"
)

func TestSame(t *testing.T) {
	if !reflect.DeepEqual([]int{1}, []int{1}) { // want `^use of .reflect\.DeepEqual. forbidden because "use cmp\.Diff" \(forbidigo\)$`
		t.Fatal("differ")
	}
	if !reflect.DeepEqual(1, 1) { //nolint:forbidigo // the directive's own line
		t.Fatal("differ")
	}
	if !reflect.DeepEqual(2, 2) { /* want `forbidden` */ //nolint:errorlint // another linter's directive
		t.Fatal("differ")
	}
}

//nolint:forbidigo // alone on its line: covers the whole declaration below
func TestCovered(t *testing.T) {
	if !reflect.DeepEqual(3, 3) {
		t.Fatal("differ")
	}
}

func TestBare(t *testing.T) {
	_ = reflect.DeepEqual(4, 4) //nolint // bare: every linter
}

func TestAfter(t *testing.T) {
	_ = reflect.DeepEqual(5, 5) // want `forbidden`
}
