package webapp

import (
	"net/http"
	"net/url"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// dayCloseRoutes serves the day close (issue 20, part 4; contract section
// 7): start, the checklist with an action for each open item, the day's
// summary, finish, and the closed days. Users whose role writes jobs
// close the day.
func (a *App) dayCloseRoutes(mux *http.ServeMux) {
	mux.Handle("GET /locations/{locationID}/day-close", a.member(a.dayClosePage))
	mux.Handle("POST /locations/{locationID}/day-close/start", a.member(a.startDayClose))
	mux.Handle("POST /locations/{locationID}/day-close/finish", a.member(a.finishDayClose))
	mux.Handle("POST /locations/{locationID}/day-close/carry-over", a.member(a.carryOver))
	mux.Handle("POST /locations/{locationID}/day-close/steps/{stepID}/complete",
		a.closeAction(workshop.CloseStepInProgress, "stepID", closeDoneCompleted, a.completeAtClose))
	mux.Handle("POST /locations/{locationID}/day-close/technicians/{techID}/clock-out",
		a.closeAction(workshop.CloseClockedIn, "techID", closeDoneClockedOut, a.clockOutAtClose))
	mux.Handle("POST /locations/{locationID}/day-close/jobs/{jobID}/promise",
		a.closeAction(workshop.ClosePromiseMissed, "jobID", closeDonePromise, a.movePromiseAtClose))
	mux.Handle("POST /locations/{locationID}/day-close/jobs/{jobID}/no-show",
		a.closeAction(workshop.CloseBookingMissed, "jobID", closeDoneNoShow, a.noShowAtClose))
	mux.Handle("GET /day-closes/{closeID}", a.member(a.closedDayPage))
}

func dayClosePath(locationID string) string { return "/locations/" + locationID + "/day-close" }

func (a *App) dayClosePage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	return a.renderDayClose(w, r, d, http.StatusOK, closeProblems{})
}

func (a *App) startDayClose(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	if _, err := a.op.OpenDayClose(r.Context(), d.loc.ID, r.PostFormValue("date"), si.Member.User.ID); err != nil {
		status, msg, known := refusalMessage(err)
		if !known {
			return err
		}
		return a.renderDayClose(w, r, d, status, closeProblems{form: msg})
	}
	// The header read before the start: the banner shows from the next page.
	http.Redirect(w, r, dayClosePath(d.loc.ID), http.StatusSeeOther)
	return nil
}

func (a *App) finishDayClose(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	closed, err := a.op.CloseDay(r.Context(), d.loc.ID, si.Member.User.ID)
	if err == nil {
		http.Redirect(w, r, "/day-closes/"+closed.ID, http.StatusSeeOther)
		return nil
	}
	status, msg, known := refusalMessage(err)
	if !known {
		return err
	}
	return a.renderDayClose(w, r, d, status, closeProblems{form: msg})
}

func (a *App) carryOver(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	kind := workshop.CloseItemKind(r.PostFormValue("kind"))
	err = a.store.CarryOver(r.Context(), si.Member.Org.ID, d.loc.ID, kind, r.PostFormValue("id"), si.Member.User.ID)
	return a.afterCloseAction(w, r, d, string(kind)+"-"+r.PostFormValue("id"), closeDoneCarriedOver, err)
}

// closeAction serves the action on one open item of a kind: do acts on
// the item the path's param names, and the checklist answers, confirming
// done.
func (a *App) closeAction(kind workshop.CloseItemKind, param, done string, do func(r *http.Request, d *desk, id string) error) http.Handler {
	return a.member(func(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
		d, err := a.locationDesk(w, r, si, mayWrite(si))
		if err != nil {
			return err
		}
		id := r.PathValue(param)
		return a.afterCloseAction(w, r, d, string(kind)+"-"+id, done, do(r, d, id))
	})
}

// completeAtClose records a step in progress as completed at the time
// given: within the date closed, whose summary counts it.
func (a *App) completeAtClose(r *http.Request, d *desk, stepID string) error {
	scope, err := a.store.DayCloseScope(r.Context(), d.loc.ID)
	if err != nil {
		return err
	}
	at, ok := d.closeTime(r.PostFormValue("at"), scope.Now)
	if !ok || !scope.CompletedBy(at) {
		return workshop.Invalid("at", "Enter when the step was completed, by the end of %s and not later than now. "+
			"If the work went on after that day, choose Carry over.", longDate(scope.Date))
	}
	completed, completedAt := workshop.StepCompleted, workshop.MicrosOf(at)
	_, err = a.store.PatchStep(r.Context(), d.closeVisibility(), r.PostFormValue("jobId"), stepID, store.StepPatch{
		UpdatedAt: parseVersion(r.PostFormValue("updatedAt")), Status: &completed, ActualEnd: &completedAt, Precision: time.Minute}, workshop.MicrosOf(a.now()))
	return err
}

// clockOutAtClose clocks a technician out at the time given.
func (a *App) clockOutAtClose(r *http.Request, d *desk, techID string) error {
	at, ok := d.closeTime(r.PostFormValue("at"), a.now())
	if !ok {
		return workshop.Invalid("at", "Enter the clock-out time, not later than now.")
	}
	_, err := a.store.ClockOut(r.Context(), d.visibility(), techID, at, store.GivenTo(time.Minute))
	return err
}

// movePromiseAtClose moves a promise the day did not keep.
func (a *App) movePromiseAtClose(r *http.Request, d *desk, jobID string) error {
	promise, ok := d.parseLocalTime(r.PostFormValue("promiseTime"))
	if !ok || promise == nil {
		return workshop.Invalid("promiseTime", "Enter the new promise as a date and time.")
	}
	_, err := a.store.PatchJob(r.Context(), d.closeVisibility(), jobID, store.JobPatch{UpdatedAt: parseVersion(r.PostFormValue("updatedAt")),
		PromiseTime: &promise}, workshop.MicrosOf(a.now()))
	return err
}

// noShowAtClose cancels a booking that did not arrive, for the reason
// chosen.
func (a *App) noShowAtClose(r *http.Request, d *desk, jobID string) error {
	tag := r.PostFormValue("reasonTag")
	if tag == "" {
		return workshop.Invalid("reasonTags", "Choose a reason.")
	}
	_, err := a.store.CancelJob(r.Context(), d.closeVisibility(), jobID, []string{tag}, workshop.MicrosOf(a.now()),
		store.IfUnchanged(parseVersion(r.PostFormValue("updatedAt"))))
	return err
}

// closeVisibility is the desk's visibility for the close's own writes, which the
// location's close lets through.
func (d *desk) closeVisibility() store.Visibility {
	v := d.visibility()
	v.ClosingDay = true
	return v
}

// closeTime reads a datetime-local of the location; blank, or the
// current minute (the form's default: the input holds no seconds), is
// now. A time after now is refused.
func (d *desk) closeTime(s string, now time.Time) (time.Time, bool) {
	if s == "" {
		return now, true
	}
	t, ok := d.parseLocalTime(s)
	switch {
	case !ok || t.After(now):
		return now, false
	case t.Equal(now.Truncate(time.Minute)):
		return now, true
	}
	return t.Time, true
}

// afterCloseAction answers an item's action: back to the checklist
// saying what was done (303; the item has left its section, or moved to
// the carried-over ones), or the checklist again with the refusal beside
// the item.
func (a *App) afterCloseAction(w http.ResponseWriter, r *http.Request, d *desk, key, done string, err error) error {
	if err == nil {
		q := url.Values{"done": {done}, "item": {key}}
		if job := r.PostFormValue("jobId"); job != "" {
			q.Set("job", job) // a step's: read again by its job
		}
		http.Redirect(w, r, dayClosePath(d.loc.ID)+"?"+q.Encode()+"#close-done", http.StatusSeeOther)
		return nil
	}
	status, msg, known := refusalMessage(err)
	if !known {
		return err
	}
	return a.renderDayClose(w, r, d, status, closeProblems{item: key, message: msg})
}
