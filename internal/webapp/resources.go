package webapp

import "net/http"

// resourceRoutes serves technicians, bays and catalog items (issue 20, part 1).
func (a *App) resourceRoutes(mux *http.ServeMux) {}
