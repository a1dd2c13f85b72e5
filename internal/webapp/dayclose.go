package webapp

import "net/http"

// dayCloseRoutes serves the day close (issue 20, part 4).
func (a *App) dayCloseRoutes(mux *http.ServeMux) {}
