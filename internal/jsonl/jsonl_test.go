package jsonl

import (
	"errors"
	"strings"
	"testing"
)

func TestEach(t *testing.T) {
	t.Parallel()
	type row struct{ ID string }
	tests := []struct {
		name    string
		data    string
		want    []string
		wantErr string
	}{
		{"rows and blank lines", "{\"ID\":\"a\"}\n\n  \n{\"ID\":\"b\"}\n", []string{"a@1", "b@4"}, ""},
		{"no trailing newline", `{"ID":"a"}`, []string{"a@1"}, ""},
		{"broken line", "{\"ID\":\"a\"}\n{\"ID\":", nil, "rows.jsonl:2: unexpected end of JSON input"},
		{"rejected row", "{\"ID\":\"\"}\n", nil, "rows.jsonl:1: no id"},
		{"empty file", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			err := Each([]byte(tt.data), "rows.jsonl", func(line int, r *row) error {
				if r.ID == "" {
					return errors.New("no id")
				}
				got = append(got, r.ID+"@"+string(rune('0'+line)))
				return nil
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
