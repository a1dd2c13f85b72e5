package webapp

import (
	"context"
	"net/url"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// What an item's action did, as the checklist confirms it after the
// redirect (?done=, with ?item= the item's key and, for a step, ?job=).
const (
	closeDoneCompleted   = "completed"
	closeDoneClockedOut  = "clocked-out"
	closeDonePromise     = "promise-moved"
	closeDoneNoShow      = "no-show"
	closeDoneCarriedOver = "carried-over"
)

// closeDoneText is each confirmation without the item's name: what is
// said when the item cannot be read again.
var closeDoneText = map[string]string{
	closeDoneCompleted:   "Done: the step is recorded as completed.",
	closeDoneClockedOut:  "Done: the technician is clocked out.",
	closeDonePromise:     "Done: the new promise is saved.",
	closeDoneNoShow:      "Done: the booking is cancelled as a no-show.",
	closeDoneCarriedOver: "Done: the item is carried over to the next day.",
}

// closeDone is the confirmation of the action just done, naming what it
// was done to, so that a person working down a long checklist sees which
// item went: the item has left the checklist (or, carried over, stays in
// it), so it is read again. "" for no action; the bare words when the
// item cannot be read.
func (a *App) closeDone(ctx context.Context, d *desk, items []store.DayCloseItem, q url.Values) string {
	done := q.Get("done")
	bare, ok := closeDoneText[done]
	if !ok {
		return ""
	}
	kind, id, _ := strings.Cut(q.Get("item"), "-")
	v := d.visibility()
	switch done {
	case closeDoneCarriedOver:
		for _, it := range items {
			if string(it.Kind) == kind && it.ID == id {
				return "Done: " + closeItemName(it) + " is carried over to the next day."
			}
		}
	case closeDoneClockedOut:
		if t, err := a.store.Technician(ctx, v, id); err == nil {
			return "Done: " + t.Name + " is clocked out."
		}
	case closeDoneCompleted:
		if j, err := a.store.Job(ctx, v, q.Get("job")); err == nil {
			for _, st := range j.Steps {
				if st.ID == id && st.CompletedAt != nil {
					return "Done: " + st.Label + " (" + j.JobNumber + ") is recorded as completed at " + d.when(st.CompletedAt.Time()) + "."
				}
			}
		}
	case closeDonePromise:
		if j, err := a.store.Job(ctx, v, id); err == nil && j.PromiseTime != nil {
			return "Done: " + j.JobNumber + " is now promised for " + d.when(j.PromiseTime.Time) + "."
		}
	case closeDoneNoShow:
		if j, err := a.store.Job(ctx, v, id); err == nil {
			return "Done: " + j.JobNumber + " is cancelled as a no-show."
		}
	}
	return bare
}

// closeItemName names an open item as its line in the checklist does.
func closeItemName(it store.DayCloseItem) string {
	switch it.Kind {
	case workshop.CloseClockedIn:
		return it.Label
	case workshop.CloseStepInProgress:
		return it.Label + " (" + it.JobNumber + ")"
	}
	return it.JobNumber
}
