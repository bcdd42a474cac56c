package judge

import (
	"strings"
	"testing"
)

// TestFreeformScoreMustBeANumber: a freeform score written as a string is a reply that did not
// follow the schema (as in AgentV), never read as the number it spells.
func TestFreeformScoreMustBeANumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reply   string
		want    float64
		wantErr string
	}{
		{`{"score": 0.8, "assertions": []}`, 0.8, ""},
		{`{"score": 1, "assertions": []}`, 1, ""},
		{`{"score": "0.8", "assertions": []}`, 0, `score is the string "0.8", not a number`},
		{`{"score": "high", "assertions": []}`, 0, `score is the string "high", not a number`},
		{`{"score": 1.5}`, 0, "outside 0.0–1.0"},
	}
	for _, tt := range tests {
		f, err := parseFreeform(tt.reply)
		switch {
		case tt.wantErr == "" && (err != nil || f.Score != tt.want):
			t.Errorf("%s: %+v, %v; want score %v", tt.reply, f, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: err %v, want %q", tt.reply, err, tt.wantErr)
		}
	}
}
