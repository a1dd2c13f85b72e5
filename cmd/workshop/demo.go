package main

import (
	"context"
	"fmt"
	"io"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
)

// printDemo tells a newcomer how to try the demo: its keys and curl lines.
func printDemo(w io.Writer, d operator.DemoOut, addr string) {
	state := "already seeded; fresh keys minted"
	if d.Seeded {
		state = "seeded"
	}
	fmt.Fprintf(w, `
Demo organisation %s (%s), locations %s (Berlin) and %s (Queens).
  org key       %s
  location key  %s   (pinned to Berlin)
  MCP token     %s
Keys are shown once; the next "workshop serve --demo" revokes them and prints new ones.

Try it:
  curl -s -H "Authorization: Bearer %s" http://%s/v1/platform/me
  curl -s -H "Authorization: Bearer %s" http://%s/v1/platform/locations
  curl -s -H "Authorization: Bearer %s" "http://%s/v1/scheduler/board?locationId=%s"
API reference: http://%s/docs (the OpenAPI document: http://%s/v1/openapi.json)
AI assistants (MCP): http://%s/mcp with the header "Authorization: Bearer <MCP token>"

The application: open the app line and sign in as one of the users (passwords are new at every start).
app: http://%s/
`, d.OrgID, state, d.LocationIDs[0], d.LocationIDs[1], d.OrgKey, d.LocationKey, d.MCPToken, d.OrgKey, addr, d.OrgKey, addr,
		d.OrgKey, addr, d.LocationIDs[0], addr, addr, addr, addr)
	for _, u := range d.Users {
		fmt.Fprintf(w, "user %s %s %s\n", u.Email, u.Password, u.Role)
	}
	fmt.Fprintln(w)
}

// printSetupLink prints the first-run setup link when the database has no
// organisation yet: the one way to make the first one in the application.
func printSetupLink(ctx context.Context, w io.Writer, st *store.Store, addr string) error {
	token, needed, err := operator.New(st).SetupToken(ctx)
	if err != nil || !needed {
		return err
	}
	fmt.Fprintf(w, "setup: http://%s/setup/%s\n", addr, token)
	return nil
}
