package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/suite"
)

func TestFilterApply(t *testing.T) {
	t.Parallel()
	login := &suite.Test{ID: "login"}
	suites := []*suite.Suite{
		{Name: "auth", Tags: []string{"smoke"}, Tests: []*suite.Test{login, {ID: "logout", DependsOn: []suite.Dependency{{ID: "login"}}}, {ID: "refund"}}},
		{Name: "slow", Tags: []string{"smoke", "slow"}, Tests: []*suite.Test{{ID: "login-slow"}}},
	}
	tests := []struct {
		name    string
		f       Filter
		want    map[string][]string // suite → test ids
		wantErr string
	}{
		{name: "none", f: Filter{}, want: map[string][]string{"auth": {"login", "logout", "refund"}, "slow": {"login-slow"}}},
		{name: "a glob keeps the dependencies", f: Filter{TestIDs: []string{"logout"}}, want: map[string][]string{"auth": {"login", "logout"}}},
		{name: "tags must all match", f: Filter{Tags: []string{"smoke", "slow"}}, want: map[string][]string{"slow": {"login-slow"}}},
		{name: "an excluded tag drops the file", f: Filter{TestIDs: []string{"login*"}, ExcludeTags: []string{"slow"}}, want: map[string][]string{"auth": {"login"}}},
		{name: "nothing selected", f: Filter{TestIDs: []string{"nope"}, Tags: []string{"smoke"}}, wantErr: `no test matches --test-id "nope" --tag "smoke" (4 tests in 2 suites were loaded)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := tt.f.Apply(suites)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, s := range out {
				for _, tc := range s.Tests {
					got[s.Name] = append(got[s.Name], tc.ID)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}
	if len(suites[0].Tests) != 3 {
		t.Error("Apply changed a loaded suite")
	}
}
