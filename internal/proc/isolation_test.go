package proc

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestDecideIsolation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		euid        int
		user        bool   // an isolation user is made
		note, err   string // substrings; "" = none
	}{
		{name: "not root", euid: 1000, note: "not running as root"},
		{name: "not root, asked for", euid: 1000, value: "on", note: "not running as root"},
		{name: "root turned off", value: "off", note: "EVALGATE_ISOLATION=off"},
		{name: "bad value", value: "no", err: `must be on or off, not "no"`},
		{name: "root", user: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.user && os.Geteuid() != 0 {
				t.Skip("making the isolation user needs root")
			}
			iso, err := DecideIsolation(tt.euid, func(k string) string {
				if k == isolationEnv {
					return tt.value
				}
				return ""
			})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer iso.User.Close()
			if (iso.User != nil) != tt.user || iso.User != nil && iso.User.UID != AgentUID {
				t.Errorf("user = %v, want one: %v", iso.User, tt.user)
			}
			if tt.note == "" && iso.Note != "" || !strings.Contains(iso.Note, tt.note) {
				t.Errorf("note = %q, want %q", iso.Note, tt.note)
			}
			var b bytes.Buffer
			iso.Announce(&b)
			if b.String() != "" != (tt.note != "") {
				t.Errorf("announce said %q", b.String())
			}
		})
	}
}
