package webapp

import "net/http"

// developerRoutes serves the developer settings: keys, MCP tokens, webhooks (issue 20, part 5).
func (a *App) developerRoutes(mux *http.ServeMux) {}
