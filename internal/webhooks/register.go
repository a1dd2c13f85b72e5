package webhooks

import (
	"context"
	"errors"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// CheckRegistrationURL validates the url of a registration being made or
// changed, by the API or the application: a URL the guard refuses is a
// validation error on field url (422). A nil guard is the strict one.
func (g *Guard) CheckRegistrationURL(ctx context.Context, raw string) error {
	if g == nil {
		g = &Guard{}
	}
	if err := g.CheckURL(ctx, raw); err != nil {
		var ue *URLError
		if errors.As(err, &ue) {
			return workshop.Invalid("url", "%s", ue.Reason)
		}
		return err
	}
	return nil
}
