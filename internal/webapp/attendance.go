package webapp

import "net/http"

// attendanceRoutes serves the time clock and the timesheets (issue 20, part 2).
func (a *App) attendanceRoutes(mux *http.ServeMux) {}
