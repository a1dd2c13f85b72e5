package webapp

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

const (
	scopeJobsRead  = workshop.Scope("jobs:read")
	scopeJobsWrite = workshop.Scope("jobs:write")

	dayClosingMessage = "The day is being closed at this location: jobs and steps cannot be changed until the close finishes."
	staleMessage      = "Someone else changed this since you opened it. The current values are shown below; make your change again."
	refusedMessage    = "Your role may not do this. Ask an advisor or an admin."
	inputTimeLayout   = "2006-01-02T15:04" // datetime-local
	openJobsShown     = 100
	searchLimit       = 50
)

func jobPath(jobID string) string { return "/jobs/" + jobID }

// mayRead and mayWrite are the role's job scopes.
func mayRead(si *store.SignedIn) bool  { return allows(si, scopeJobsRead) }
func mayWrite(si *store.SignedIn) bool { return allows(si, scopeJobsWrite) }

// actorOf is the signed-in user as the domain's rules of access see them
// (workshop.Actor: who may work a step, who may clock whom).
func actorOf(si *store.SignedIn) workshop.Actor {
	return workshop.Actor{Role: si.Member.User.Role, TechnicianID: si.Member.TechnicianID}
}

// desk is a location's page as a member sees it.
type desk struct {
	si      *store.SignedIn
	header  *header
	loc     workshop.Location
	zone    *time.Location
	closing bool
}

func (d *desk) visibility() store.Visibility {
	return store.Visibility{OrgID: d.si.Member.Org.ID, LocationID: d.loc.ID}
}

// deskOf reads what every page of a location needs, or the error that
// stops it: 403 without jobs:read, 404 for a location of another
// organisation.
func (a *App) deskOf(r *http.Request, si *store.SignedIn, locationID string) (*desk, error) {
	if !mayRead(si) {
		return nil, refused(nil)
	}
	h, err := a.headerOf(r, si, locationID)
	if err != nil {
		return nil, err
	}
	d := &desk{si: si, header: h}
	i := slices.IndexFunc(h.Locations, func(l workshop.Location) bool { return l.ID == locationID })
	if i < 0 {
		return nil, errNoSuchPage
	}
	d.loc = h.Locations[i]
	if d.zone, err = d.loc.Zone(); err != nil {
		return nil, err
	}
	d.closing = h.DayClosing
	return d, nil
}

// locationDesk opens a request of a page of the path's location: its
// desk for a user allowed (else 403 under the page's header), with a
// posted form read.
func (a *App) locationDesk(w http.ResponseWriter, r *http.Request, si *store.SignedIn, allowed bool) (*desk, error) {
	d, err := a.deskOf(r, si, r.PathValue("locationID"))
	if err != nil {
		return nil, err
	}
	if !allowed {
		return nil, refused(d.header)
	}
	return d, parseForm(w, r)
}

// refusal puts a refused write's reason on the form, beside the field or
// at its top, and tells the status to answer with; ok is false for a
// fault of the server. aliases rename the API's fields to the form's.
func (f form) refusal(err error, aliases map[string]string) (status int, ok bool) {
	var e *workshop.Error
	if !errors.As(err, &e) {
		return http.StatusInternalServerError, false
	}
	switch e.Code {
	case workshop.CodeValidationFailed:
		for _, fe := range e.Fields {
			name := fe.Field
			if alias, found := aliases[name]; found {
				name = alias
			}
			if _, known := f.Values[name]; !known {
				name = ""
			}
			if _, taken := f.Errors[name]; !taken {
				f.Errors[name] = fe.Message
			}
		}
		return http.StatusUnprocessableEntity, true
	case workshop.CodeStaleUpdatedAt:
		f.Errors[""] = staleMessage
		return http.StatusConflict, true
	case workshop.CodeDayCloseInProgress:
		f.Errors[""] = dayClosingMessage
		return http.StatusConflict, true
	case workshop.CodeInvalidTransition:
		f.Errors[""] = e.Detail
		return http.StatusConflict, true
	case workshop.CodeNotFound:
		f.Errors[""] = e.Detail
		return http.StatusNotFound, true
	default:
		f.Errors[""] = e.Detail
		return http.StatusBadRequest, true
	}
}

// refusalMessage is a refused write's status and its message for the top
// of a page (a form without fields); ok is false for a fault of the
// server.
func refusalMessage(err error) (status int, message string, ok bool) {
	f := form{Values: map[string]string{}, Errors: map[string]string{}}
	status, ok = f.refusal(err, nil)
	return status, f.Errors[""], ok
}

// jobRow is a job in a list.
type jobRow struct {
	ID, Number, Plate, Vehicle, Status, StatusLabel, Promise string
}

// statusLabels are the words of every job and step status (a step's
// in_progress is a job's) and of the board's two other counts, in the
// order a job goes through: the one table of the lists, the board, the
// job page and a technician's work.
var statusLabels = []struct{ status, label string }{
	{workshop.JobBooked, "Booked"}, {workshop.JobArrived, "Arrived"}, {workshop.JobInProgress, "In progress"},
	{workshop.JobWaiting, "Waiting"}, {workshop.JobReady, "Ready"}, {workshop.JobDelivered, "Delivered"},
	{workshop.JobCancelled, "Cancelled"}, {workshop.StepPending, "Pending"}, {workshop.StepCompleted, "Completed"},
	{jobsLate, "Late"}, {jobsAtRisk, "At risk"}, {"total", "All jobs"},
}

func statusLabel(s string) string {
	for _, l := range statusLabels {
		if l.status == s {
			return l.label
		}
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func vehicleOf(j workshop.Job) string {
	return strings.TrimSpace(deref(j.VehicleMake) + " " + deref(j.VehicleModel))
}

func (d *desk) when(t time.Time) string { return dateTimeText(t, d.zone) }

func (d *desk) rowOf(j workshop.Job) jobRow {
	r := jobRow{ID: j.ID, Number: j.JobNumber, Plate: deref(j.VehiclePlate), Vehicle: vehicleOf(j), Status: j.Status, StatusLabel: statusLabel(j.Status)}
	if j.PromiseTime != nil {
		r.Promise = d.when(j.PromiseTime.Time)
	}
	return r
}

// openStatuses are the statuses of jobs not yet delivered or cancelled.
var openStatuses = []string{workshop.JobBooked, workshop.JobArrived, workshop.JobInProgress, workshop.JobWaiting, workshop.JobReady}

// findJobs is a location's job desk: the jobs found by q (any part of
// the number, plate, make, model, external key, customer name or phone;
// store.SearchJobs says how), those of a status, or
// its open jobs.
func (a *App) findJobs(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.deskOf(r, si, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	status := r.URL.Query().Get("status")
	list, err := a.jobList(r.Context(), d, q, status)
	if err != nil {
		return err
	}
	rows := make([]jobRow, len(list.jobs))
	for i, j := range list.jobs {
		rows[i] = d.rowOf(j)
	}
	f := form{Values: map[string]string{"q": q}, Errors: map[string]string{}}
	return a.render(w, r, http.StatusOK, "jobs", view{Header: d.header, Form: f, Data: map[string]any{
		"Location": d.loc, "Query": q, "Heading": list.heading, "Empty": list.empty, "Filtered": q != "" || list.status != "",
		"Jobs": rows, "More": list.more, "Shown": openJobsShown, "MayWrite": mayWrite(si)}})
}

// jobList is what the job list shows: the jobs found by q, else those of
// a status (as the board's count tiles link to them: a job status, late,
// at risk or all), else the open jobs.
type jobList struct {
	jobs           []workshop.Job
	more           bool // more than shown
	status         string
	heading, empty string
}

// The job list's statuses beyond the jobs' own: the board's late and at
// risk (store.LateJobs, store.AtRiskJobs), and all, every job whatever
// its status (the board's "All jobs").
const (
	jobsLate   = "late"
	jobsAtRisk = "at_risk"
	jobsAll    = "all"
)

func jobsPath(locationID string) string { return "/locations/" + locationID + "/jobs" }

func (a *App) jobList(ctx context.Context, d *desk, q, status string) (jobList, error) {
	now := workshop.MicrosOf(a.now())
	var err error
	switch {
	case q != "":
		l := jobList{heading: "Jobs matching “" + q + "”", empty: "No job number, plate, make, model, external key, customer or phone contains this."}
		l.jobs, err = a.store.SearchJobs(ctx, d.visibility(), d.loc.ID, q, searchLimit)
		return l, err
	case status == jobsLate:
		l := jobList{status: status, heading: "Late jobs", empty: "No job is late."}
		l.jobs, err = a.store.LateJobs(ctx, d.visibility(), d.loc.ID, now, openJobsShown)
		return l, err
	case status == jobsAtRisk:
		l := jobList{status: status, heading: "Jobs at risk", empty: "The plan finishes every job by its promise."}
		l.jobs, err = a.store.AtRiskJobs(ctx, d.visibility(), d.loc.ID, now, openJobsShown)
		return l, err
	}
	l := jobList{heading: "Open jobs", empty: "No open jobs."}
	statuses := openStatuses
	switch {
	case slices.Contains(workshop.JobStatuses, status):
		l.status, l.heading, l.empty = status, statusLabel(status)+" jobs", "No job is "+strings.ToLower(statusLabel(status))+"."
		statuses = []string{status}
	case status == jobsAll:
		l.status, l.heading, l.empty = status, "All jobs", "No jobs yet."
		statuses = workshop.JobStatuses
	}
	page, err := a.store.Jobs(ctx, store.JobFilter{Visibility: d.visibility(), Statuses: statuses},
		workshop.PageRequest{Limit: openJobsShown})
	if err != nil {
		return l, err
	}
	l.jobs, l.more = page.Data, page.NextCursor != nil
	return l, nil
}

// parseLocalTime reads a datetime-local value in the location's zone.
// jobFields reads the fields the new-job and edit forms share (the
// number, the vehicle, the promise in the location's time, the priority)
// and checks what only the form can: the promise's and the priority's
// form. The fields' own rules are the store's (workshop.CheckJob).
func (d *desk) jobFields(v *workshop.Validation, f form) (number string, promise *workshop.OffsetTime) {
	promise, ok := d.parseLocalTime(f.Values["promiseTime"])
	if !ok {
		v.Add("promiseTime", "Enter the promise as a date and time.")
	}
	if !slices.Contains(workshop.Priorities, f.Values["priority"]) {
		v.Add("priority", "Choose a priority.")
	}
	return strings.TrimSpace(f.Values["jobNumber"]), promise
}

// customerFields reads a job form's customer and drop-off fields: blanks
// are nil; the domain checks the phone and email (CheckJob, ChangeJob).
func (d *desk) customerFields(v *workshop.Validation, f form) (name, phone, email *string, expected *time.Time) {
	at, ok := d.parseLocalTime(f.Values["expectedArrival"])
	if !ok {
		v.Add("expectedArrival", "Enter the drop-off as a date and time.")
	}
	if at != nil {
		expected = &at.Time
	}
	return optionalText(f.Values["customerName"]), optionalText(f.Values["customerPhone"]), optionalText(f.Values["customerEmail"]), expected
}

// customerValues are a job's customer and drop-off fields as its forms
// show them.
func (d *desk) customerValues(j workshop.Job, into map[string]string) map[string]string {
	into["customerName"], into["customerPhone"], into["customerEmail"] = deref(j.CustomerName), deref(j.CustomerPhone), deref(j.CustomerEmail)
	into["expectedArrival"] = ""
	if j.ExpectedArrival != nil {
		into["expectedArrival"] = d.localInput(&workshop.OffsetTime{Time: *j.ExpectedArrival})
	}
	return into
}

// customerFieldNames are the inputs customerFields reads.
var customerFieldNames = []string{"customerName", "customerPhone", "customerEmail", "expectedArrival"}

func (d *desk) parseLocalTime(s string) (*workshop.OffsetTime, bool) {
	if s == "" {
		return nil, true
	}
	t, err := time.ParseInLocation(inputTimeLayout, s, d.zone)
	if err != nil {
		return nil, false
	}
	return &workshop.OffsetTime{Time: t}, true
}

func (d *desk) localInput(t *workshop.OffsetTime) string {
	if t == nil {
		return ""
	}
	return t.In(d.zone).Format(inputTimeLayout)
}

// optionalText is a form's text: nil when blank.
func optionalText(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return &s
}

// parseVersion reads a form's updatedAt: the version of the record the
// form was made from.
func parseVersion(s string) workshop.Micros {
	n, _ := strconv.ParseInt(s, 10, 64)
	return workshop.Micros(n)
}

func versionOf(m workshop.Micros) string { return strconv.FormatInt(int64(m), 10) }

// isAdmin tells whether the user is an owner or an admin: they run the
// organisation (its locations, users and workshop settings).
func isAdmin(si *store.SignedIn) bool {
	r := si.Member.User.Role
	return r == workshop.RoleOwner || r == workshop.RoleAdmin
}

// allows tells whether the user's role holds the scope.
func allows(si *store.SignedIn, s workshop.Scope) bool { return si.Member.User.Role.Allows(s) }
