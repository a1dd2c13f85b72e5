package webapp

import (
	"bytes"
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func newJobPath(locationID string) string { return "/locations/" + locationID + "/jobs/new" }

// quoteView is the availability quote (contract section 8) of the
// catalog steps chosen on the new-job form: when the job could be ready
// if it came in now, without moving any planned work.
type quoteView struct {
	Ready   string // "Thu 26 Nov 14:30"
	Promise string // the same minute as the promise input takes it
	Problem string // why it cannot be quoted
}

// quoteOf quotes the catalog services codes; nil without any.
func (a *App) quoteOf(r *http.Request, d *desk, codes []string) (*quoteView, error) {
	if len(codes) == 0 {
		return nil, nil
	}
	ctx, now := r.Context(), a.now()
	items, err := a.store.CatalogItemsByCode(ctx, d.loc.ID, codes)
	if err != nil {
		return nil, err
	}
	steps, err := workshop.QuoteStepsOf(items, codes)
	if err != nil {
		return &quoteView{Problem: "A step chosen is no longer in the catalog."}, nil
	}
	plan, err := a.plans.Plan(ctx, d.loc.ID, now)
	if err != nil {
		return nil, err
	}
	q := workshop.QuoteAvailability(plan.FreshInput(), plan.Dispatch, now, steps)
	if q.EarliestCompletion == nil {
		return &quoteView{Problem: "It cannot be planned now: " + unplacedReasons[q.Unplaced] + "."}, nil
	}
	ready := q.EarliestCompletion.Truncate(time.Minute)
	if ready.Before(*q.EarliestCompletion) {
		ready = ready.Add(time.Minute) // a promise is never before the work is done
	}
	return &quoteView{Ready: d.when(ready), Promise: d.localInput(&workshop.OffsetTime{Time: ready})}, nil
}

// newJobQuote answers the new-job form's quote alone (htmx asks for it
// as the catalog steps are chosen).
func (a *App) newJobQuote(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	quote, err := a.quoteOf(r, d, r.URL.Query()["serviceCodes"])
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := a.pages["jobnew"].ExecuteTemplate(&b, "quote", quote); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = b.WriteTo(w)
	return nil
}
