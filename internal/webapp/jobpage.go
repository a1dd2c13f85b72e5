package webapp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// stepView is a step on its job's page, with its assignment form.
type stepView struct {
	ID, Label, Status, StatusLabel, Version string
	Minutes                                 int
	TechNames, BayName                      string
	Planned, Actual, Projected              string
	Unplaced                                string // why the plan cannot place it
	WaitsFor, WaitsForLabel                 string // the unplaced step it waits for
	MayAssign, MayStart, MayComplete        bool
	Form                                    form
	Techs, Bays                             []option
}

// timeRow is one line of the job's timeline or history.
type timeRow struct{ When, What string }

// jobPageData is a job's page.
type jobPageData struct {
	Location       workshop.Location
	Job            jobRow
	Version        string
	Arrival        string
	Priority       string
	ExternalKey    string
	CancelReasons  string
	Open, MayWrite bool
	Closing        bool
	Steps          []stepView
	Detail         *detailView
	History        []timeRow
	Edit, AddStep  form
	Actions        form // deliver and cancel
	Priorities     []option
	Catalog        []option
	Tags           []option
	Notice         string // a refusal whose form the page does not show (the job is finished)
}

// detailView is the job detail as the page shows it, in the location's zone.
type detailView struct {
	Planned, Actual, Projected, Promise string
	AtRisk                              bool
	Slack                               string
	Holds, Delays                       []timeRow
}

// jobOf reads the job of the path the user's organisation sees, and the
// desk of its location; false when it answered the request.
func (a *App) jobOf(w http.ResponseWriter, r *http.Request, si *store.SignedIn) (*desk, workshop.Job, bool) {
	if !mayRead(si) {
		a.message(w, r, http.StatusForbidden, "Refused", refusedMessage)
		return nil, workshop.Job{}, false
	}
	j, err := a.store.Job(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, r.PathValue("jobID"))
	if err != nil {
		a.readFailed(w, r, err)
		return nil, j, false
	}
	d, ok := a.deskOf(w, r, si, j.LocationID)
	return d, j, ok
}

// forms are the forms of a job page a write failed on, to show with
// their values and errors; nil: made from the job.
type jobForms struct {
	edit, addStep, actions *form
	stepID                 string
	step                   *form
	codes, tags            []string
}

func (a *App) jobPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	d, j, ok := a.jobOf(w, r, si)
	if !ok {
		return
	}
	a.renderJob(w, r, d, j, http.StatusOK, jobForms{})
}

func newForm(values map[string]string) *form {
	return &form{Values: values, Errors: map[string]string{}}
}

// renderJob writes the job's page as it is now, with the forms of fs.
func (a *App) renderJob(w http.ResponseWriter, r *http.Request, d *desk, j workshop.Job, status int, fs jobForms) {
	ctx, v := r.Context(), d.visibility()
	techs, err := a.store.Technicians(ctx, v, workshop.PageRequest{Limit: 200})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	bays, err := a.store.Bays(ctx, v, workshop.PageRequest{Limit: 200})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	tags, err := a.store.CancelTagsWithRetired(ctx, d.loc.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	catalog, err := a.catalogOf(r, d, fs.codes)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	techName := map[string]string{}
	for _, t := range techs.Data {
		techName[t.ID] = t.Name
	}
	bayName := map[string]string{}
	for _, b := range bays.Data {
		bayName[b.ID] = b.Name
	}
	write := mayWrite(d.si)
	p := jobPageData{Location: d.loc, Job: d.rowOf(j), Version: versionOf(j.UpdatedAt), Priority: j.Priority,
		ExternalKey: deref(j.ExternalKey), CancelReasons: reasonLabels(j.CancelReasons, tags),
		Open: !j.Terminal(), MayWrite: write && !j.Terminal(), Closing: d.closing, Catalog: catalog}
	if j.ArrivalTime != nil {
		p.Arrival = d.when(j.ArrivalTime.Time)
	}
	for _, t := range tags {
		if t.Retired {
			continue // no cancel may give it
		}
		p.Tags = append(p.Tags, option{Value: t.Tag, Label: t.Label, Checked: slices.Contains(fs.tags, t.Tag)})
	}
	p.Edit = orForm(fs.edit, map[string]string{"jobNumber": j.JobNumber, "vehiclePlate": deref(j.VehiclePlate),
		"vehicleMake": deref(j.VehicleMake), "vehicleModel": deref(j.VehicleModel), "promiseTime": d.localInput(j.PromiseTime),
		"priority": j.Priority, "updatedAt": versionOf(j.UpdatedAt)})
	p.Edit.Values["updatedAt"] = versionOf(j.UpdatedAt) // a conflict shows the current version to send again
	p.Priorities = priorityOptions(p.Edit.Values["priority"])
	p.AddStep = orForm(fs.addStep, map[string]string{"serviceCode": "", "label": "", "estimatedDuration": "60"})
	p.Actions = orForm(fs.actions, map[string]string{"reasonTags": "", "updatedAt": versionOf(j.UpdatedAt)})
	p.Actions.Values["updatedAt"] = versionOf(j.UpdatedAt)

	detail, err := a.plans.JobDetail(ctx, store.Visibility{OrgID: d.si.Member.Org.ID}, j.ID, a.now())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p.Detail = d.detailViewOf(detail)
	history := detail.History
	for i := len(history) - 1; i >= 0; i-- { // newest first
		p.History = append(p.History, timeRow{When: d.when(history[i].At.Time()), What: statusLabel(history[i].Status)})
	}
	labels := map[string]string{} // the steps' labels as the detail read them, for "waits for"
	for _, st := range detail.Job.Steps {
		labels[st.ID] = st.Label
	}
	for _, st := range j.Steps {
		sv := stepView{ID: st.ID, Label: st.Label, Status: st.Status, StatusLabel: statusLabel(st.Status), Version: versionOf(st.UpdatedAt),
			Minutes: st.EstimatedDuration, MayAssign: p.MayWrite && st.Status != workshop.StepCompleted,
			MayStart:    !j.Terminal() && st.Status == workshop.StepPending && mayWorkStep(d.si, st),
			MayComplete: !j.Terminal() && st.Status == workshop.StepInProgress && mayWorkStep(d.si, st)}
		var names []string
		for _, id := range st.TechIDs {
			names = append(names, techName[id])
		}
		sv.TechNames = strings.Join(names, ", ")
		if st.BayID != nil {
			sv.BayName = bayName[*st.BayID]
		}
		for i, ds := range detail.Job.Steps {
			if ds.ID == st.ID {
				sd := detail.Steps[i]
				sv.Planned, sv.Actual, sv.Projected = d.spanOf(sd.PlannedStart, sd.PlannedEnd), d.spanOf(sd.ActualStart, sd.ActualEnd), d.whenOf(sd.ProjectedEnd)
				if u := sd.Unplaced; u != nil && u.Reason == workshop.UnplacedAfter {
					sv.WaitsFor, sv.WaitsForLabel = u.BlockedBy, labels[u.BlockedBy]
				} else if u != nil {
					sv.Unplaced = unplacedReasons[u.Reason]
				}
			}
		}
		chosenTechs, chosenBay := st.TechIDs, deref(st.BayID)
		if fs.stepID == st.ID && fs.step != nil {
			sv.Form = *fs.step
			chosenTechs, chosenBay = strings.Fields(sv.Form.Values["techIds"]), sv.Form.Values["bayId"]
		} else {
			sv.Form = *newForm(map[string]string{})
		}
		sv.Form.Values["updatedAt"] = sv.Version
		for _, t := range techs.Data {
			sv.Techs = append(sv.Techs, option{Value: t.ID, Label: t.Name, Checked: slices.Contains(chosenTechs, t.ID)})
		}
		for _, b := range bays.Data {
			label := b.Name
			if b.Status == "maintenance" {
				label += " (in maintenance)"
			}
			sv.Bays = append(sv.Bays, option{Value: b.ID, Label: label, Checked: chosenBay == b.ID, Disabled: b.Status == "maintenance" && chosenBay != b.ID})
		}
		p.Steps = append(p.Steps, sv)
	}
	if !p.MayWrite { // the forms are not shown: their refusal goes on top
		for _, f := range []*form{fs.edit, fs.addStep, fs.actions} {
			if f != nil && f.Errors[""] != "" {
				p.Notice = f.Errors[""]
			}
		}
	}
	a.render(w, r, status, "job", view{Header: d.header, Data: p})
}

func orForm(f *form, values map[string]string) form {
	if f != nil {
		return *f
	}
	return *newForm(values)
}

// spanOf is from – to, "from – now" while it lasts; "" without a start.
func (d *desk) spanOf(from, to *time.Time) string {
	if from == nil {
		return ""
	}
	if to == nil {
		return d.when(*from) + " – now"
	}
	return d.when(*from) + " – " + d.when(*to)
}

// whenOf is when, "" for none.
func (d *desk) whenOf(t *time.Time) string {
	if t == nil {
		return ""
	}
	return d.when(*t)
}

func (d *desk) detailViewOf(dt workshop.JobDetail) *detailView {
	v := &detailView{Actual: d.spanOf(dt.ActualStart, dt.ActualEnd), Projected: d.whenOf(dt.Promise.ProjectedCompletion),
		Promise: d.whenOf(dt.Promise.PromiseTime), AtRisk: dt.Promise.AtRisk}
	switch {
	case dt.PlannedStart != nil && dt.PlannedEnd != nil:
		v.Planned = d.spanOf(dt.PlannedStart, dt.PlannedEnd)
	case dt.PlannedStart != nil:
		v.Planned = "from " + d.when(*dt.PlannedStart) + "; a step cannot be placed"
	}
	if dt.Promise.SlackMinutes != nil {
		v.Slack = strconv.Itoa(*dt.Promise.SlackMinutes) + " min"
	}
	for _, h := range dt.Holds {
		end := "still waiting"
		if h.End != nil {
			end = "until " + d.when(*h.End)
		}
		v.Holds = append(v.Holds, timeRow{When: d.when(h.Start), What: "Waiting, " + end})
	}
	for _, dl := range dt.Delays {
		what := strconv.Itoa(dl.Minutes) + " min over its estimate (due " + d.when(dl.PlannedEnd) + ")"
		if dl.Ongoing {
			what += ", still running"
		}
		for _, st := range dt.Job.Steps {
			if st.ID == dl.StepID {
				what = st.Label + ": " + what
			}
		}
		v.Delays = append(v.Delays, timeRow{When: d.when(dl.End), What: what})
	}
	return v
}

// jobWrite reads the job of a write and refuses it when the user may not
// write or the day is closing; ok false: answered.
func (a *App) jobWrite(w http.ResponseWriter, r *http.Request, si *store.SignedIn, allowed func(workshop.Job) bool) (*desk, workshop.Job, bool) {
	d, j, ok := a.jobOf(w, r, si)
	if !ok || a.refuseWrite(w, r, d, allowed(j)) {
		return nil, j, false
	}
	return d, j, a.parseForm(w, r)
}

func writer(si *store.SignedIn) func(workshop.Job) bool {
	return func(workshop.Job) bool { return mayWrite(si) }
}

// after answers a write: to the job's page (303) when it went through,
// else the page again with the refusal on its form (a fresh read: a
// conflict shows the current values).
func (a *App) after(w http.ResponseWriter, r *http.Request, d *desk, jobID string, err error, f *form, aliases map[string]string, fs jobForms) {
	// Back where the form was (a technician's list of work), else the job.
	next, ok := localPath(r.PostFormValue("next"))
	if !ok {
		next = jobPath(jobID)
	}
	status, again := a.settle(w, r, err, f, aliases, next)
	if !again {
		return
	}
	j, rerr := a.store.Job(r.Context(), store.Visibility{OrgID: d.si.Member.Org.ID}, jobID)
	if rerr != nil {
		a.fail(w, r, rerr)
		return
	}
	a.renderJob(w, r, d, j, status, fs)
}

var editFields = []string{"jobNumber", "vehiclePlate", "vehicleMake", "vehicleModel", "promiseTime", "priority", "updatedAt"}

// editJob changes a job's fields against the version the form was made
// from.
func (a *App) editJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	d, j, ok := a.jobWrite(w, r, si, writer(si))
	if !ok {
		return
	}
	f := formOf(r, editFields...)
	var v workshop.Validation
	number, promise := d.jobFields(&v, f)
	if err := workshop.CheckJobNumber(number); err != nil {
		f.refusal(err, nil)
	}
	err := v.Err()
	if err == nil && len(f.Errors) == 0 {
		prio := f.Values["priority"]
		plate, make_, model := optionalText(f.Values["vehiclePlate"]), optionalText(f.Values["vehicleMake"]), optionalText(f.Values["vehicleModel"])
		_, err = a.store.PatchJob(r.Context(), d.visibility(), j.ID, store.JobPatch{UpdatedAt: parseVersion(f.Values["updatedAt"]),
			JobNumber: &number, VehiclePlate: &plate, VehicleMake: &make_, VehicleModel: &model, PromiseTime: &promise, Priority: &prio},
			workshop.MicrosOf(a.now()))
	}
	if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
		// someone else changed it: the form shows the job as it is now
		f.refusal(err, nil)
		cur, rerr := a.store.Job(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, j.ID)
		if rerr != nil {
			a.fail(w, r, rerr)
			return
		}
		a.renderJob(w, r, d, cur, http.StatusConflict, jobForms{edit: &form{Values: map[string]string{"jobNumber": cur.JobNumber,
			"vehiclePlate": deref(cur.VehiclePlate), "vehicleMake": deref(cur.VehicleMake), "vehicleModel": deref(cur.VehicleModel),
			"promiseTime": d.localInput(cur.PromiseTime), "priority": cur.Priority}, Errors: f.Errors}})
		return
	}
	a.after(w, r, d, j.ID, err, &f, nil, jobForms{edit: &f})
}

// addStep adds a step from the catalog or of free text.
func (a *App) addStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	d, j, ok := a.jobWrite(w, r, si, writer(si))
	if !ok {
		return
	}
	f := formOf(r, "serviceCode", "label", "estimatedDuration")
	now := workshop.MicrosOf(a.now())
	st := workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: j.ID, SchedulingMode: "sequential", TechIDs: []string{},
		Status: workshop.StepPending, CreatedAt: now, UpdatedAt: now, Label: strings.TrimSpace(f.Values["label"])}
	var v workshop.Validation
	checkLengths(&v, f, 200, "label")
	if code := f.Values["serviceCode"]; code != "" {
		st.ServiceCode = &code
	} else if st.Label == "" {
		v.Add("label", "Choose a service or describe the step.")
	}
	if s := strings.TrimSpace(f.Values["estimatedDuration"]); s != "" && st.ServiceCode == nil {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10080 {
			v.Add("estimatedDuration", "Enter the estimate in minutes, 1 to 10080.")
		}
		st.EstimatedDuration = n
	}
	err := v.Err()
	if err == nil {
		_, err = a.store.CreateStep(r.Context(), d.visibility(), st)
	}
	a.after(w, r, d, j.ID, err, &f, nil, jobForms{addStep: &f})
}

// stepOf finds the step of the path in the job.
func stepOf(j workshop.Job, id string) (workshop.Step, bool) {
	i := slices.IndexFunc(j.Steps, func(st workshop.Step) bool { return st.ID == id })
	if i < 0 {
		return workshop.Step{}, false
	}
	return j.Steps[i], true
}

// patchStep writes a step change made on the job page: assign, start or
// complete. patch fills the change from the form, or refuses the form.
func (a *App) patchStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn, allowed func(*store.SignedIn, workshop.Step) bool,
	patch func(d *desk, f form, p *store.StepPatch) error) {
	stepID := r.PathValue("stepID")
	d, j, ok := a.jobWrite(w, r, si, func(j workshop.Job) bool {
		st, found := stepOf(j, stepID)
		return !found || allowed(si, st) // an unknown step is a 404 below
	})
	if !ok {
		return
	}
	if _, found := stepOf(j, stepID); !found {
		a.notFound(w, r)
		return
	}
	f := formOf(r, "techIds", "bayId", "updatedAt", "actualStart", "actualEnd")
	f.Values["techIds"] = strings.Join(r.PostForm["techIds"], " ")
	p := store.StepPatch{UpdatedAt: parseVersion(f.Values["updatedAt"])}
	err := patch(d, f, &p)
	if err == nil {
		_, err = a.store.PatchStep(r.Context(), d.visibility(), j.ID, stepID, p, workshop.MicrosOf(a.now()))
	}
	fs := jobForms{stepID: stepID, step: &f}
	if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
		// the step as it is now: the choices from the record, not the form
		f.refusal(err, nil)
		fs.step = &form{Values: map[string]string{}, Errors: f.Errors}
		if cur, rerr := a.store.Job(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, j.ID); rerr == nil {
			if st, found := stepOf(cur, stepID); found {
				fs.step.Values["techIds"], fs.step.Values["bayId"] = strings.Join(st.TechIDs, " "), deref(st.BayID)
			}
		}
		a.afterStale(w, r, d, j.ID, fs)
		return
	}
	a.after(w, r, d, j.ID, err, &f, nil, fs)
}

func (a *App) afterStale(w http.ResponseWriter, r *http.Request, d *desk, jobID string, fs jobForms) {
	j, err := a.store.Job(r.Context(), store.Visibility{OrgID: d.si.Member.Org.ID}, jobID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.renderJob(w, r, d, j, http.StatusConflict, fs)
}

func (a *App) assignStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	a.patchStep(w, r, si, func(si *store.SignedIn, _ workshop.Step) bool { return mayWrite(si) }, func(_ *desk, f form, p *store.StepPatch) error {
		techs := strings.Fields(f.Values["techIds"])
		if techs == nil {
			techs = []string{}
		}
		bay := optionalText(f.Values["bayId"])
		p.TechIDs, p.BayID = &techs, &bay
		return nil
	})
}

// startStep starts a step now or, for a person writing down what happened,
// at the "started at" time of the form (contract section 9).
func (a *App) startStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	a.patchStep(w, r, si, mayWorkStep, func(d *desk, f form, p *store.StepPatch) (err error) {
		s := workshop.StepInProgress
		p.Status = &s
		p.ActualStart, err = d.actualTime(f, "actualStart")
		return err
	})
}

// completeStep completes a step now or at the form's "finished at" time.
func (a *App) completeStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	a.patchStep(w, r, si, mayWorkStep, func(d *desk, f form, p *store.StepPatch) (err error) {
		s := workshop.StepCompleted
		p.Status = &s
		p.ActualEnd, err = d.actualTime(f, "actualEnd")
		return err
	})
}

// actualTime reads an optional "started at" or "finished at" of a step
// form, a datetime-local of the location: nil when blank (the server's
// time).
func (d *desk) actualTime(f form, field string) (*workshop.Micros, error) {
	t, ok := d.parseLocalTime(f.Values[field])
	if !ok {
		return nil, workshop.Invalid(field, "Enter the time as a date and time, or leave it blank for now.")
	}
	if t == nil {
		return nil, nil
	}
	m := workshop.MicrosOf(t.Time)
	return &m, nil
}

// finishJob delivers or cancels a job. The store's deliver and cancel take
// no version, so the version the form was made from is checked first: a
// job changed since is shown again as it is now rather than finished
// unseen.
func (a *App) finishJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn, cancel bool) {
	d, j, ok := a.jobWrite(w, r, si, writer(si))
	if !ok {
		return
	}
	f := formOf(r, "reasonTags", "updatedAt")
	tags := r.PostForm["reasonTags"]
	fs := jobForms{actions: &f, tags: tags}
	// The form's version is checked in the write itself: a change made
	// since the page was shown is a conflict, never finished unseen.
	unchanged := store.IfUnchanged(parseVersion(f.Values["updatedAt"]))
	var err error
	switch {
	case cancel && len(tags) == 0:
		err = workshop.Invalid("reasonTags", "Choose at least one reason.")
	case cancel:
		_, err = a.store.CancelJob(r.Context(), d.visibility(), j.ID, tags, workshop.MicrosOf(a.now()), unchanged)
	default:
		_, err = a.store.DeliverJob(r.Context(), d.visibility(), j.ID, workshop.MicrosOf(a.now()), unchanged)
	}
	if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
		fs.tags = nil // the job as it is now
	}
	a.after(w, r, d, j.ID, err, &f, nil, fs)
}

func (a *App) deliverJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	a.finishJob(w, r, si, false)
}

func (a *App) cancelJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) {
	a.finishJob(w, r, si, true)
}

// reasonLabels names a cancelled job's reasons by their labels, a retired
// tag's too; a tag the location never had shows as it is.
func reasonLabels(reasons []string, tags []workshop.CancelTag) string {
	out := make([]string, len(reasons))
	for i, r := range reasons {
		out[i] = r
		if j := slices.IndexFunc(tags, func(t workshop.CancelTag) bool { return t.Tag == r }); j >= 0 {
			out[i] = tags[j].Label
		}
	}
	return strings.Join(out, ", ")
}
