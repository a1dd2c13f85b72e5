package webapp

import "net/http"

// organisationRoutes serves the organisation: locations, users, plan (issue 20, part 6).
func (a *App) organisationRoutes(mux *http.ServeMux) {}
