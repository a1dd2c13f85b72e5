package main

import (
	"fmt"
	"io"

	"github.com/workshop-platform/workshop/internal/operator"
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
Keys are shown once; run "workshop serve --demo" again for new ones.

Try it:
  curl -s -H "Authorization: Bearer %s" http://%s/v1/platform/me
  curl -s -H "Authorization: Bearer %s" http://%s/v1/platform/locations
  curl -s -H "Authorization: Bearer %s" "http://%s/v1/scheduler/board?locationId=%s"
API reference: http://%s/v1/openapi.json
AI assistants (MCP): http://%s/mcp with the header "Authorization: Bearer <MCP token>"

`, d.OrgID, state, d.LocationIDs[0], d.LocationIDs[1], d.OrgKey, d.LocationKey, d.MCPToken, d.OrgKey, addr, d.OrgKey, addr,
		d.OrgKey, addr, d.LocationIDs[0], addr, addr)
}
