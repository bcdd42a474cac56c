package github

import (
	"encoding/json"
	"testing"
)

// TestAnnotationJSON: an annotation marshals with the check-runs API's field names, so a dry
// run's printed payload is the request GitHub would get.
func TestAnnotationJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Annotation
		want string
	}{
		{"every field", Annotation{Path: "evals/a.eval.yaml", StartLine: 3, EndLine: 4, Level: "failure", Title: "t", Message: "m", RawDetails: "r"},
			`{"path":"evals/a.eval.yaml","start_line":3,"end_line":4,"annotation_level":"failure","title":"t","message":"m","raw_details":"r"}`},
		{"optional fields left out", Annotation{Path: "a", StartLine: 1, EndLine: 1, Level: "notice", Message: "m"},
			`{"path":"a","start_line":1,"end_line":1,"annotation_level":"notice","message":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}
