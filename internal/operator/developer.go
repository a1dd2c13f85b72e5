package operator

import (
	"context"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The developer settings' operations on keys and MCP tokens, beside
// CreateKey and RevokeKey (operator.go).

// maxKeyName bounds the name of a key or token.
const maxKeyName = 100

// checkKeyName validates the optional name of a key or token.
func checkKeyName(name string) error {
	if n := len([]rune(strings.TrimSpace(name))); n > maxKeyName {
		return workshop.Invalid("name", "At most %d characters, please (this has %d).", maxKeyName, n)
	}
	return nil
}

// CreateNamedMCPToken makes a read-only MCP token acting as the user, with
// the name the user gives it ("": none).
func (o *Operator) CreateNamedMCPToken(ctx context.Context, userID, name string) (TokenOut, error) {
	u, err := o.developer(ctx, userID)
	if err != nil {
		return TokenOut{}, err
	}
	if err := checkKeyName(name); err != nil {
		return TokenOut{}, err
	}
	secret := workshop.NewSecret(workshop.MCPTokenPrefix)
	c, err := o.Store.CreateCredential(ctx, workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindMCPToken,
		Name: strings.TrimSpace(name), OrgID: u.OrgID, UserID: u.ID, SecretHash: workshop.HashSecret(secret),
		Scopes: readScopes(u.Role), CreatedAt: o.stamp()})
	return TokenOut{ID: c.ID, Token: secret}, err
}
