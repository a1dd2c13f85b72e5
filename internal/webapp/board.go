package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func boardPath(locationID string) string { return "/locations/" + locationID + "/board" }

// boardCount is one count of the board, labelled.
type boardCount struct {
	Status, Label string
	N             int
}

// boardLabels are the board's counts in the order a job goes through.
var boardLabels = []struct{ status, label string }{
	{workshop.JobBooked, "Booked"}, {workshop.JobArrived, "Arrived"}, {workshop.JobInProgress, "In progress"},
	{workshop.JobWaiting, "Waiting"}, {workshop.JobReady, "Ready"}, {workshop.JobDelivered, "Delivered"},
	{workshop.JobCancelled, "Cancelled"}, {"late", "Late"}, {"total", "All jobs"},
}

// board is a location's board: its job counts and bays. Every role sees
// it (issue 19: a technician sees the board).
func (a *App) board(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	locID := r.PathValue("locationID")
	h, err := a.headerOf(r, si, locID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var loc *workshop.Location
	for i := range h.Locations {
		if h.Locations[i].ID == locID {
			loc = &h.Locations[i]
		}
	}
	if loc == nil { // of another organisation, or none: alike
		a.notFound(w, r)
		return
	}
	b, err := a.store.Board(r.Context(), locID, workshop.MicrosOf(a.now()))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	counts := make([]boardCount, len(boardLabels))
	for i, l := range boardLabels {
		counts[i] = boardCount{Status: l.status, Label: l.label, N: b.Jobs[l.status]}
	}
	a.render(w, r, http.StatusOK, "board", view{Header: h, Data: map[string]any{"Location": loc, "Counts": counts, "Bays": b.Bays}})
}
