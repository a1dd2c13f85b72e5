package webapp

import "net/http"

// settingsRoutes serves the workshop settings: hours, breaks, bay buffer, cancel reason tags (issue 20, part 3).
func (a *App) settingsRoutes(mux *http.ServeMux) {}
