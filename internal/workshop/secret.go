package workshop

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Prefixes of the secrets shown once: API keys and MCP tokens.
const (
	APIKeyPrefix   = "wsk_"
	MCPTokenPrefix = "wsm_"
)

// NewSecret returns prefix and 256 random bits in base32 (52 characters).
func NewSecret(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	var hi, lo [16]byte
	copy(hi[:], b[:16])
	copy(lo[:], b[16:])
	out := make([]byte, len(prefix)+52)
	copy(out, prefix)
	encode32(out[len(prefix):], hi)
	encode32(out[len(prefix)+26:], lo)
	return string(out)
}

// HashSecret is what is stored of a secret: SHA-256, hex. The secrets carry
// 256 random bits, so a fast hash is as strong as a slow one here and keeps
// the per-request lookup cheap.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// KindOfSecret tells which kind a presented secret claims to be by its
// prefix; ok is false for anything else.
func KindOfSecret(secret string) (kind CredentialKind, ok bool) {
	switch {
	case strings.HasPrefix(secret, APIKeyPrefix):
		return KindAPIKey, true
	case strings.HasPrefix(secret, MCPTokenPrefix):
		return KindMCPToken, true
	}
	return "", false
}
