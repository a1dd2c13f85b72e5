package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// adminWithStdin runs an admin command with stdin, as run does; it returns
// the printed object, or the error.
func adminWithStdin(t *testing.T, env map[string]string, stdin string, args ...string) (map[string]any, error) {
	t.Helper()
	var stdout bytes.Buffer
	if err := admin(context.Background(), args, envOf(env), strings.NewReader(stdin), &stdout); err != nil {
		if stdout.Len() > 0 {
			t.Errorf("%v failed (%v) but printed %q", args, err, stdout.String())
		}
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		t.Fatalf("%v printed no JSON object: %q", args, stdout.String())
	}
	return m, nil
}

// The operator commands of the application's sign-in (contract sections 1
// and 7): passwords from stdin, set-password and invite.
func TestAdminPasswordsAndInvites(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", "pro", 1)
		dbFlag := []string{"--database", db.URL}
		matches := func(email, password string) bool {
			t.Helper()
			members, err := w.st.MembersByEmail(t.Context(), email)
			if err != nil {
				t.Fatal(err)
			}
			return len(members) == 1 && workshop.PasswordMatches(members[0].User.PasswordHash, password)
		}

		created, err := adminWithStdin(t, nil, testPassword+"\r\nignored second line\n",
			append([]string{"user", "create", "--org", a.ID, "--email", "new@example.com", "--role", "advisor", "--password-stdin"}, dbFlag...)...)
		if err != nil {
			t.Fatalf("user create --password-stdin: %v", err)
		}
		for _, k := range []string{"id", "orgId", "email", "role", "developerAccess"} {
			if _, ok := created[k]; !ok {
				t.Errorf("user create printed %v, lacking %q", created, k)
			}
		}
		if !matches("new@example.com", testPassword) {
			t.Error("user create --password-stdin: the first line of stdin is not the password")
		}
		userID, _ := created["id"].(string)

		out, err := adminWithStdin(t, nil, "a newer long password", append([]string{"user", "set-password", userID, "--password-stdin"}, dbFlag...)...)
		if err != nil || len(out) != 2 || out["id"] != userID || out["passwordSet"] != true {
			t.Errorf("set-password = %v, %v; want {id, passwordSet: true}", out, err)
		}
		if !matches("new@example.com", "a newer long password") {
			t.Error("set-password did not set the password")
		}

		for _, tc := range []struct {
			name, stdin, mention string
			args                 []string
		}{
			{"create with a short password", "short\n", "at least 10 characters",
				[]string{"user", "create", "--org", a.ID, "--email", "short@example.com", "--role", "advisor", "--password-stdin"}},
			{"create with nothing on stdin", "", "No password on stdin",
				[]string{"user", "create", "--org", a.ID, "--email", "empty@example.com", "--role", "advisor", "--password-stdin"}},
			{"set-password without --password-stdin", testPassword, "--password-stdin", []string{"user", "set-password", userID}},
			{"set-password with a short password", "123456789", "at least 10 characters", []string{"user", "set-password", userID, "--password-stdin"}},
			{"set-password of an unknown user", testPassword, "user", []string{"user", "set-password", "usr_missing", "--password-stdin"}},
			{"invite an unknown user", "", "user", []string{"user", "invite", "usr_missing"}},
			{"invite with a bad base URL", "", "base-url", []string{"user", "invite", userID, "--base-url", "ftp://example.com"}},
		} {
			_, err := adminWithStdin(t, nil, tc.stdin, append(tc.args, dbFlag...)...)
			if err == nil || !strings.Contains(message(err), tc.mention) {
				t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.mention)
			}
		}
		for _, email := range []string{"short@example.com", "empty@example.com"} {
			if m, _ := w.st.MembersByEmail(t.Context(), email); len(m) != 0 {
				t.Errorf("a refused user create made %s", email)
			}
		}
		if !matches("new@example.com", "a newer long password") {
			t.Error("a refused set-password changed the password")
		}

		for _, tc := range []struct {
			name   string
			env    map[string]string
			args   []string
			prefix string
		}{
			{"default base", nil, nil, "http://127.0.0.1:8080/invite/"},
			{"WORKSHOP_ADDR", map[string]string{"WORKSHOP_ADDR": "0.0.0.0:9000"}, nil, "http://0.0.0.0:9000/invite/"},
			{"--base-url", nil, []string{"--base-url", "https://shop.example.com/"}, "https://shop.example.com/invite/"},
		} {
			out, err := adminWithStdin(t, tc.env, "", append(append([]string{"user", "invite", userID}, tc.args...), dbFlag...)...)
			link, _ := out["inviteUrl"].(string)
			if err != nil || out["id"] != userID || !strings.HasPrefix(link, tc.prefix) || len(link) <= len(tc.prefix) {
				t.Errorf("invite (%s) = %v, %v; want the user's id and a link under %s", tc.name, out, err, tc.prefix)
				continue
			}
			token := strings.TrimPrefix(link, tc.prefix)
			if m, err := w.st.Invitee(t.Context(), workshop.HashSecret(token)); err != nil || m.User.ID != userID {
				t.Errorf("invite (%s): the link's token is not the user's invite: %v", tc.name, err)
			}
		}
	})
}
