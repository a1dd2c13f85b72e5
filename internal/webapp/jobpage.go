package webapp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// stepView is a step on its job's page, with its assignment form.
type stepView struct {
	ID, Label, Status, StatusLabel, Version string
	Minutes                                 int
	TechNames, BayName                      string
	Planned, Actual, Projected              string
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
// desk of its location.
func (a *App) jobOf(r *http.Request, si *store.SignedIn) (*desk, workshop.Job, error) {
	if !mayRead(si) {
		return nil, workshop.Job{}, refused(nil)
	}
	j, err := a.store.Job(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, r.PathValue("jobID"))
	if err != nil {
		return nil, j, err
	}
	d, err := a.deskOf(r, si, j.LocationID)
	return d, j, err
}

// forms are the forms of a job page a write failed on, to show with
// their values and errors; nil: made from the job.
type jobForms struct {
	edit, addStep, actions *form
	stepID                 string
	step                   *form
	codes, tags            []string
}

func (a *App) jobPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, j, err := a.jobOf(r, si)
	if err != nil {
		return err
	}
	return a.renderJob(w, r, d, j, http.StatusOK, jobForms{})
}

func newForm(values map[string]string) *form {
	return &form{Values: values, Errors: map[string]string{}}
}

// renderJob writes the job's page as it is now, with the forms of fs.
func (a *App) renderJob(w http.ResponseWriter, r *http.Request, d *desk, j workshop.Job, status int, fs jobForms) error {
	ctx, v := r.Context(), d.visibility()
	techs, err := a.store.Technicians(ctx, v, workshop.PageRequest{Limit: 200})
	if err != nil {
		return err
	}
	bays, err := a.store.Bays(ctx, v, workshop.PageRequest{Limit: 200})
	if err != nil {
		return err
	}
	tags, err := a.store.CancelTagsWithRetired(ctx, d.loc.ID)
	if err != nil {
		return err
	}
	catalog, err := a.catalogOf(r, d, fs.codes)
	if err != nil {
		return err
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
	p.Edit = formOr(fs.edit, map[string]string{"jobNumber": j.JobNumber, "vehiclePlate": deref(j.VehiclePlate),
		"vehicleMake": deref(j.VehicleMake), "vehicleModel": deref(j.VehicleModel), "promiseTime": d.localInput(j.PromiseTime),
		"priority": j.Priority, "updatedAt": versionOf(j.UpdatedAt)})
	p.Edit.Values["updatedAt"] = versionOf(j.UpdatedAt) // a conflict shows the current version to send again
	p.Priorities = priorityOptions(p.Edit.Values["priority"])
	p.AddStep = formOr(fs.addStep, map[string]string{"serviceCode": "", "label": "", "estimatedDuration": "60"})
	p.Actions = formOr(fs.actions, map[string]string{"reasonTags": "", "updatedAt": versionOf(j.UpdatedAt)})
	p.Actions.Values["updatedAt"] = versionOf(j.UpdatedAt)

	var detail *oapi.JobDetail
	if a.jobDetail != nil {
		dt, history, err := a.jobDetail(ctx, store.Visibility{OrgID: d.si.Member.Org.ID}, j.ID)
		if err != nil {
			return err
		}
		detail = &dt
		p.Detail = d.detailViewOf(dt)
		for i := len(history) - 1; i >= 0; i-- { // newest first
			p.History = append(p.History, timeRow{When: d.when(history[i].At.Time()), What: statusLabel(history[i].Status)})
		}
	}
	for _, st := range j.Steps {
		sv := stepView{ID: st.ID, Label: st.Label, Status: st.Status, StatusLabel: stepStatusLabel(st.Status), Version: versionOf(st.UpdatedAt),
			Minutes: st.EstimatedDuration, MayAssign: p.MayWrite && st.Status != workshop.StepCompleted,
			MayStart:    !j.Terminal() && st.Status == workshop.StepPending && actorOf(d.si).MayWorkStep(st),
			MayComplete: !j.Terminal() && st.Status == workshop.StepInProgress && actorOf(d.si).MayWorkStep(st)}
		var names []string
		for _, id := range st.TechIDs {
			names = append(names, techName[id])
		}
		sv.TechNames = strings.Join(names, ", ")
		if st.BayID != nil {
			sv.BayName = bayName[*st.BayID]
		}
		if detail != nil {
			for _, sd := range detail.Steps {
				if sd.Id == st.ID {
					sv.Planned = d.span(sd.PlannedStart, sd.PlannedEnd)
					sv.Actual = d.spanOf(sd.ActualStart, sd.ActualEnd)
					sv.Projected = d.when(sd.ProjectedEnd)
				}
			}
		}
		chosenTechs, chosenBay := st.TechIDs, deref(st.BayID)
		sv.Form = *newForm(map[string]string{})
		if fs.stepID == st.ID && fs.step != nil {
			sv.Form = formOr(fs.step, sv.Form.Values) // after a stale edit: the step as it is now
			if fs.step.Values != nil {
				chosenTechs, chosenBay = strings.Fields(sv.Form.Values["techIds"]), sv.Form.Values["bayId"]
			}
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
	return a.render(w, r, status, "job", view{Header: d.header, Data: p})
}

var stepStatusLabels = map[string]string{workshop.StepPending: "Pending", workshop.StepInProgress: "In progress", workshop.StepCompleted: "Completed"}

func stepStatusLabel(s string) string {
	if l, ok := stepStatusLabels[s]; ok {
		return l
	}
	return s
}

func (d *desk) span(from, to time.Time) string { return d.when(from) + " – " + d.when(to) }

func (d *desk) spanOf(from, to interface {
	Get() (time.Time, error)
}) string {
	s, err := from.Get()
	if err != nil {
		return ""
	}
	out := d.when(s) + " – "
	if e, err := to.Get(); err == nil {
		out += d.when(e)
	} else {
		out += "now"
	}
	return out
}

func (d *desk) detailViewOf(dt oapi.JobDetail) *detailView {
	v := &detailView{Planned: d.span(dt.PlannedStart, dt.PlannedEnd), Actual: d.spanOf(dt.ActualStart, dt.ActualEnd),
		Projected: d.when(dt.Promise.ProjectedCompletion), AtRisk: dt.Promise.AtRisk}
	if t, err := dt.Promise.PromiseTime.Get(); err == nil {
		v.Promise = d.when(t)
	}
	if n, err := dt.Promise.SlackMinutes.Get(); err == nil {
		v.Slack = strconv.Itoa(n) + " min"
	}
	for _, h := range dt.Holds {
		end := "still waiting"
		if e, err := h.End.Get(); err == nil {
			end = "until " + d.when(e)
		}
		v.Holds = append(v.Holds, timeRow{When: d.when(h.Start), What: "Waiting, " + end})
	}
	for _, dl := range dt.Delays {
		what := strconv.Itoa(dl.Minutes) + " min late (planned end " + d.when(dl.PlannedEnd) + ")"
		if dl.Ongoing {
			what += ", still running"
		}
		for _, st := range dt.Steps {
			if st.Id == dl.StepId {
				what = st.Label + ": " + what
			}
		}
		v.Delays = append(v.Delays, timeRow{When: d.when(dl.End), What: what})
	}
	return v
}

// jobWrite reads the job of a write, with its form, and refuses it (403)
// when the user may not make it. The day close is not checked here: the
// store refuses the write itself (day_close_in_progress), as for the API.
func (a *App) jobWrite(w http.ResponseWriter, r *http.Request, si *store.SignedIn, allowed func(workshop.Job) bool) (*desk, workshop.Job, error) {
	d, j, err := a.jobOf(r, si)
	if err != nil {
		return nil, j, err
	}
	if !allowed(j) {
		return nil, j, refused(d.header)
	}
	return d, j, parseForm(w, r)
}

func writer(si *store.SignedIn) func(workshop.Job) bool {
	return func(workshop.Job) bool { return mayWrite(si) }
}

// settleJob ends a write of the job's page with settle: back where the
// form was (a technician's list of work) or to the job, else the job's
// page again, read afresh (a conflict shows the current values), with
// the forms of fs.
func (a *App) settleJob(w http.ResponseWriter, r *http.Request, d *desk, jobID string, err error, f *form, fs jobForms) error {
	next, ok := localPath(r.PostFormValue("next"))
	if !ok {
		next = jobPath(jobID)
	}
	return a.settle(w, r, err, f, nil, next, func(status int) error {
		j, err := a.store.Job(r.Context(), store.Visibility{OrgID: d.si.Member.Org.ID}, jobID)
		if err != nil {
			return err
		}
		return a.renderJob(w, r, d, j, status, fs)
	})
}

var editFields = []string{"jobNumber", "vehiclePlate", "vehicleMake", "vehicleModel", "promiseTime", "priority", "updatedAt"}

// editJob changes a job's fields against the version the form was made
// from.
func (a *App) editJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
	}
	f := formOf(r, editFields...)
	var v workshop.Validation
	number, promise := d.jobFields(&v, f)
	if err := workshop.CheckJobNumber(number); err != nil {
		f.refusal(err, nil)
	}
	err = v.Err()
	if err == nil && len(f.Errors) == 0 {
		prio := f.Values["priority"]
		plate, make_, model := optionalText(f.Values["vehiclePlate"]), optionalText(f.Values["vehicleMake"]), optionalText(f.Values["vehicleModel"])
		_, err = a.store.PatchJob(r.Context(), d.visibility(), j.ID, store.JobPatch{UpdatedAt: parseVersion(f.Values["updatedAt"]),
			JobNumber: &number, VehiclePlate: &plate, VehicleMake: &make_, VehicleModel: &model, PromiseTime: &promise, Priority: &prio},
			workshop.MicrosOf(a.now()))
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{edit: &f})
}

// addStep adds a step from the catalog or of free text.
func (a *App) addStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
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
	err = v.Err()
	if err == nil {
		_, err = a.store.CreateStep(r.Context(), d.visibility(), st)
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{addStep: &f})
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
// complete.
func (a *App) patchStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn, allowed func(workshop.Actor, workshop.Step) bool,
	patch func(f form, p *store.StepPatch)) error {
	stepID := r.PathValue("stepID")
	d, j, err := a.jobWrite(w, r, si, func(j workshop.Job) bool {
		st, found := stepOf(j, stepID)
		return !found || allowed(actorOf(si), st) // an unknown step is a 404 below
	})
	if err != nil {
		return err
	}
	if _, found := stepOf(j, stepID); !found {
		return errNoSuchPage
	}
	f := formOf(r, "techIds", "bayId", "updatedAt")
	f.Values["techIds"] = strings.Join(r.PostForm["techIds"], " ")
	p := store.StepPatch{UpdatedAt: parseVersion(f.Values["updatedAt"])}
	patch(f, &p)
	_, err = a.store.PatchStep(r.Context(), d.visibility(), j.ID, stepID, p, workshop.MicrosOf(a.now()))
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{stepID: stepID, step: &f})
}

func (a *App) assignStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.patchStep(w, r, si, func(ac workshop.Actor, _ workshop.Step) bool { return ac.Role.Allows(scopeJobsWrite) }, func(f form, p *store.StepPatch) {
		techs := strings.Fields(f.Values["techIds"])
		if techs == nil {
			techs = []string{}
		}
		bay := optionalText(f.Values["bayId"])
		p.TechIDs, p.BayID = &techs, &bay
	})
}

func (a *App) startStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.patchStep(w, r, si, workshop.Actor.MayWorkStep, func(_ form, p *store.StepPatch) {
		s := workshop.StepInProgress
		p.Status = &s
	})
}

func (a *App) completeStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.patchStep(w, r, si, workshop.Actor.MayWorkStep, func(_ form, p *store.StepPatch) {
		s := workshop.StepCompleted
		p.Status = &s
	})
}

// finishJob delivers or cancels a job against the version the form was
// made from: a job changed since is a conflict, shown again as it is now
// rather than finished unseen.
func (a *App) finishJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn, cancel bool) error {
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
	}
	f := formOf(r, "reasonTags", "updatedAt")
	tags := r.PostForm["reasonTags"]
	fs := jobForms{actions: &f, tags: tags}
	unchanged := store.IfUnchanged(parseVersion(f.Values["updatedAt"]))
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
	return a.settleJob(w, r, d, j.ID, err, &f, fs)
}

func (a *App) deliverJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.finishJob(w, r, si, false)
}

func (a *App) cancelJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.finishJob(w, r, si, true)
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
