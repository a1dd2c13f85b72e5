package workshop

import (
	"strings"
	"testing"
)

func TestPasswordHashRoundTrip(t *testing.T) {
	t.Parallel()
	hash := HashPassword("correct horse battery")
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q: want the PHC form with its parameters", hash)
	}
	if again := HashPassword("correct horse battery"); again == hash {
		t.Fatalf("two hashes of one password are equal: the salt is not random")
	}
	for _, tc := range []struct {
		name, hash, password string
		want                 bool
	}{
		{"the password", hash, "correct horse battery", true},
		{"another password", hash, "correct horse batterY", false},
		{"no hash (no password set)", "", "correct horse battery", false},
		{"not argon2id", strings.Replace(hash, "argon2id", "argon2i", 1), "correct horse battery", false},
		{"broken parameters", strings.Replace(hash, "t=2", "t=x", 1), "correct horse battery", false},
		{"broken salt", strings.Replace(hash, "p=1$", "p=1$!", 1), "correct horse battery", false},
		{"missing field", hash[:strings.LastIndex(hash, "$")], "correct horse battery", false},
	} {
		if got := PasswordMatches(tc.hash, tc.password); got != tc.want {
			t.Errorf("%s: PasswordMatches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPasswordRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		password string
		ok       bool
	}{{"", false}, {"123456789", false}, {"1234567890", true}, {"ääääääääää", true}, {"äääääääää", false}} {
		err := CheckPasswordRule("password", tc.password)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPasswordRule(%q) = %v, want ok %v", tc.password, err, tc.ok)
		}
	}
}
