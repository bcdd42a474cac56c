package redact

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestIsCredentialName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "AZURE_OPENAI_API_KEY": true, "ANTHROPIC_API_KEY": true,
		"INPUT_GITHUB_TOKEN": true, "GITHUB_TOKEN": true, "ACTIONS_RUNTIME_TOKEN": true,
		"ACTIONS_ID_TOKEN_REQUEST_URL": true, "DB_PASSWORD": true, "MY_SECRET_VALUE": true,
		"GH_PAT": true, "KEY": true, "SIGNING_KEY_ID": true, "input_judge": true, "apikey": true,
		"PATH": false, "HOME": false, "MONKEY": false, "OPENAI_BASE_URL": false, "MODEL": false,
		"GITHUB_SHA": false, "KEYBOARD": false, "PATCH_LEVEL": false, "HF_AUTH": true, "AWS_ACCESSKEY": true, "RUNNER_TOKEN": true,
	} {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	r := New("sk-abc123", "sk-abc123456", "", "abcdefg", `pa"ss\word`)
	tests := map[string]string{
		"key sk-abc123 end":     "key *** end",
		"key sk-abc123456 end":  "key *** end", // the longer secret is masked whole
		"no secret here":        "no secret here",
		"abcdefg stays":         "abcdefg stays", // too short to be a credential
		`json "pa\"ss\\word"`:   `json "***"`,
		"raw pa\"ss\\word done": "raw *** done",
	}
	for in, want := range tests {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	var nilR *Redactor
	if nilR.String("x sk-abc123") != "x sk-abc123" || !nilR.empty() || !New().empty() {
		t.Error("a nil or empty Redactor must pass text through")
	}
}

func TestFromEnviron(t *testing.T) {
	t.Parallel()
	r := fromEnviron([]string{"OPENAI_API_KEY=sk-live-1234", "PATH=/usr/bin/x", "INPUT_GITHUB_TOKEN=ghs_x1234567",
		"INPUT_CHECK_NAME=evalgate-check", "ACTIONS_RUNTIME_TOKEN=rt_12345678", "ACTIONS_CACHE_URL=https://cache.example/", "NOEQUALS"}, "extra-secret")
	got := r.String("sk-live-1234 /usr/bin/x ghs_x1234567 extra-secret evalgate-check rt_12345678 https://cache.example/")
	if got != "*** /usr/bin/x *** *** evalgate-check *** https://cache.example/" {
		t.Fatalf("got %q", got)
	}
}

// TestWriterSplits writes a text containing secrets in every possible split into two writes
// and byte by byte: the output must equal String of the whole text.
func TestWriterSplits(t *testing.T) {
	t.Parallel()
	r := New("secret-one", "secret-one-two", "tok_7777")
	text := "a secret-one b secret-one-two c secret-on tok_777 tok_7777secret-one end sec"
	want := r.String(text)
	for cut := 0; cut <= len(text); cut++ {
		var out bytes.Buffer
		w := r.Writer(&out)
		if _, err := w.Write([]byte(text[:cut])); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(text[cut:])); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("cut %d: %q, want %q", cut, out.String(), want)
		}
	}
	var out bytes.Buffer
	w := r.Writer(&out)
	for i := range len(text) {
		_, _ = w.Write([]byte{text[i]})
	}
	_ = w.Close()
	if out.String() != want {
		t.Fatalf("byte by byte: %q, want %q", out.String(), want)
	}
	if strings.Contains(out.String(), "secret-one") || strings.Contains(out.String(), "tok_7777") {
		t.Fatal("a secret leaked")
	}
}

func TestAddGrows(t *testing.T) {
	t.Parallel()
	r := New()
	if !r.empty() || r.String("late-secret") != "late-secret" {
		t.Fatal("an empty Redactor must pass text through")
	}
	r.Add("late-secret")
	if r.empty() || r.String("x late-secret") != "x ***" {
		t.Fatalf("after Add: %q", r.String("x late-secret"))
	}
}

func TestHas(t *testing.T) {
	t.Parallel()
	r := New("postgres://app:hunter2@db/prod", "short")
	for v, want := range map[string]bool{"postgres://app:hunter2@db/prod": true, " postgres://app:hunter2@db/prod\n": true, "postgres://app": false, "short": false, "": false} {
		if got := r.Has(v); got != want {
			t.Errorf("Has(%q) = %v, want %v", v, got, want)
		}
	}
	if (*Redactor)(nil).Has("anything-long") {
		t.Error("nil has a secret")
	}
}

func TestValue(t *testing.T) {
	t.Parallel()
	type inner struct {
		Text   string
		hidden string
	}
	type model struct {
		ID      string
		Ptr     *inner
		List    []inner
		Details map[string]any
		Err     error
	}
	const secret = "postgres://app:hunter2@db/prod"
	m := &model{ID: "db-" + secret, Ptr: &inner{Text: secret, hidden: secret}, List: []inner{{Text: "x " + secret}},
		Details: map[string]any{secret: "k", "v": []any{secret, 3}, "n": map[string]any{"deep": secret}}, Err: io.EOF}
	New(secret).Value(m)
	if m.ID != "db-***" || m.Ptr.Text != "***" || m.List[0].Text != "x ***" || m.Ptr.hidden != secret || m.Err != io.EOF { //nolint:errorlint // the very value, left alone
		t.Fatalf("%+v %+v", m, m.Ptr)
	}
	if _, ok := m.Details[secret]; ok || m.Details["***"] != "k" || m.Details["v"].([]any)[0] != "***" || m.Details["n"].(map[string]any)["deep"] != "***" {
		t.Fatalf("details %v", m.Details)
	}
	New().Value(m) // nothing to scrub: nothing changes, no panic
	(*Redactor)(nil).Value(m)
}
