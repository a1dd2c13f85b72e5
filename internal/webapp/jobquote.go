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
	// Days are the next working days to offer a booking: a drop-off at
	// each day's opening and when it would be ready (contract section 8).
	Days []offerView
}

// offerView is one day of the strip: "Mon: ready 15:10", and the values
// choosing it puts into the form.
type offerView struct {
	Label, Choice string // Choice: "DROPOFF|PROMISE" as the inputs take them
}

// offerDays is how many working days the strip offers.
const offerDays = 5

// offersOf words the days to offer a booking.
func (d *desk) offersOf(days []workshop.DayOffer) []offerView {
	var out []offerView
	for _, o := range days {
		day := o.Date.Format("Mon")
		if o.EarliestCompletion == nil {
			continue // not offered: it cannot be planned from that day
		}
		ready := readyMinute(*o.EarliestCompletion)
		when := clockText(ready, d.zone)
		if !o.SameDay {
			when = dateTimeText(ready, d.zone)
		}
		out = append(out, offerView{Label: day + ": ready " + when,
			Choice: d.localInput(&workshop.OffsetTime{Time: o.DropOff}) + "|" + d.localInput(&workshop.OffsetTime{Time: ready})})
	}
	return out
}

// readyMinute is a completion as a promise: the next whole minute (a
// promise is never before the work is done).
func readyMinute(t time.Time) time.Time {
	ready := t.Truncate(time.Minute)
	if ready.Before(t) {
		ready = ready.Add(time.Minute)
	}
	return ready
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
	q, err := a.plans.Quote(ctx, d.loc.ID, now, now, steps)
	if err != nil {
		return nil, err
	}
	if q.EarliestCompletion == nil {
		return &quoteView{Problem: "It cannot be planned now: " + unplacedReasons[q.Unplaced] + "."}, nil
	}
	ready := readyMinute(*q.EarliestCompletion)
	offers, err := a.plans.AvailabilityDays(ctx, d.loc.ID, now, "", offerDays, steps)
	if err != nil {
		return nil, err
	}
	return &quoteView{Ready: d.when(ready), Promise: d.localInput(&workshop.OffsetTime{Time: ready}), Days: d.offersOf(offers.Days)}, nil
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
