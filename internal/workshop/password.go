package workshop

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Sign-in rules of the workshop application (contract section 7).
const (
	MinPasswordLength  = 10
	SessionIdleTimeout = 12 * time.Hour
	InviteValidity     = 7 * 24 * time.Hour // an invite link, and the first-run setup link
	LoginFailureLimit  = 10                 // failed sign-ins of one email ...
	LoginFailureWindow = 15 * time.Minute   // ... within this long ...
	LoginLockDuration  = 15 * time.Minute   // ... lock its sign-in this long
)

// argon2id parameters: OWASP's recommendation for argon2id (19 MiB, two
// passes, one lane). They are written into every hash, so raising them
// later leaves older hashes verifiable.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
)

// CheckPasswordRule is validation_failed on field unless the password is
// long enough.
func CheckPasswordRule(field, password string) error {
	if utf8.RuneCountInString(password) < MinPasswordLength {
		return Invalid(field, "The password must have at least %d characters.", MinPasswordLength)
	}
	return nil
}

// HashPassword is the argon2id hash of a password in the PHC string form
// $argon2id$v=19$m=...,t=...,p=...$salt$key.
func HashPassword(password string) string {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// PasswordMatches tells whether password is the one hashed; a malformed or
// empty hash (no password set) matches nothing.
func PasswordMatches(hash, password string) bool {
	fields := strings.Split(hash, "$") // "", "argon2id", "v=19", "m=..,t=..,p=..", salt, key
	if len(fields) != 6 || fields[0] != "" || fields[1] != "argon2id" || fields[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return false
	}
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(fields[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil || threads == 0 || passes == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(fields[4])
	key, err2 := b64.DecodeString(fields[5])
	if err1 != nil || err2 != nil || len(key) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1
}

// decoyHash is verified when no user has the email given, so that a wrong
// email costs as long as a wrong password and does not tell which it was.
// It is made on first use: every binary and test imports this package.
var decoyHash = sync.OnceValue(func() string { return HashPassword(NewSecret("")) })

// SpendPasswordCheck costs what one PasswordMatches does, matching nothing.
func SpendPasswordCheck(password string) { PasswordMatches(decoyHash(), password) }

// PasswordStamp identifies a password hash without repeating it: a session
// keeps the stamp of the hash it signed in with and ends when it changes.
func PasswordStamp(hash string) string {
	sum := sha256.Sum256([]byte(hash))
	return hex.EncodeToString(sum[:16])
}
