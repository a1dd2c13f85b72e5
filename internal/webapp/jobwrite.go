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

// jobRoutes serve a job's page and its writes. Every write answers with
// a redirect back to the page, at the place it was made, with a message
// of what it did (jobdone.go), or with the page again and the refusal
// beside the form. A GET of a write's address (the address bar after a
// refusal, a bookmark) goes to the job's page rather than "Not found".
func (a *App) jobRoutes(mux *http.ServeMux) {
	mux.Handle("GET /jobs/{jobID}", a.member(a.jobPage))
	mux.Handle("POST /jobs/{jobID}/edit", a.member(a.editJob))
	mux.Handle("POST /jobs/{jobID}/steps", a.member(a.addStep))
	mux.Handle("POST /jobs/{jobID}/steps/{stepID}/assign", a.member(a.assignStep))
	mux.Handle("POST /jobs/{jobID}/steps/{stepID}/accept", a.member(a.acceptStep))
	mux.Handle("POST /jobs/{jobID}/accept", a.member(a.acceptJob))
	mux.Handle("POST /jobs/{jobID}/steps/{stepID}/start", a.member(a.startStep))
	mux.Handle("POST /jobs/{jobID}/steps/{stepID}/complete", a.member(a.completeStep))
	mux.Handle("GET /jobs/{jobID}/deliver", a.member(a.confirmDeliver))
	mux.Handle("POST /jobs/{jobID}/deliver", a.member(a.deliverJob))
	mux.Handle("GET /jobs/{jobID}/cancel", a.member(a.confirmCancel))
	mux.Handle("POST /jobs/{jobID}/cancel", a.member(a.cancelJob))
	mux.Handle("GET /jobs/{jobID}/{write...}", a.member(func(w http.ResponseWriter, r *http.Request, _ *store.SignedIn) error {
		http.Redirect(w, r, jobPath(r.PathValue("jobID")), http.StatusSeeOther)
		return nil
	}))
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
// form was (a technician's list of work) or to the job's page at anchor,
// confirming the write of kind; else the job's page again, read afresh
// (a conflict shows the current values), with the forms of fs, shown at
// refusedAt (htmx scrolls there; without it the form's action names it).
func (a *App) settleJob(w http.ResponseWriter, r *http.Request, d *desk, jobID string, err error, f *form, fs jobForms,
	kind, anchor, refusedAt string) error {
	next, ok := localPath(r.PostFormValue("next"))
	onList := ok && next == myWorkPath // sent from a technician's list of work
	switch {
	case onList:
		next = myWorkDone(kind, fs.stepID) // the list confirms it at the step
	case !ok:
		next = doneAddress(jobID, kind, fs.stepID, anchor)
	}
	return a.settle(w, r, err, f, nil, next, func(status int) error {
		if onList { // refused on the technician's list: the reason there, at the step
			return a.renderMyWork(w, r, d.si, status, fs.stepID, workRefusal(err, *f))
		}
		j, err := a.store.Job(r.Context(), store.Visibility{OrgID: d.si.Member.Org.ID}, jobID)
		if err != nil {
			return err
		}
		w.Header().Set("HX-Reswap", "innerHTML show:#"+refusedAt+":top")
		return a.renderJob(w, r, d, j, status, fs)
	})
}

var editFields = append([]string{"jobNumber", "vehiclePlate", "vehicleMake", "vehicleModel", "promiseTime", "priority", "updatedAt"},
	customerFieldNames...)

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
	name, phone, email, expected := d.customerFields(&v, f)
	if expected != nil && j.ExpectedArrival != nil && expected.Equal(*j.ExpectedArrival) {
		expected = j.ExpectedArrival // the form shows minutes in the location's zone: unchanged keeps the stored offset
	}
	err = v.Err()
	if err == nil && len(f.Errors) == 0 {
		prio := f.Values["priority"]
		plate, make_, model := optionalText(f.Values["vehiclePlate"]), optionalText(f.Values["vehicleMake"]), optionalText(f.Values["vehicleModel"])
		_, err = a.store.PatchJob(r.Context(), d.visibility(), j.ID, store.JobPatch{UpdatedAt: parseVersion(f.Values["updatedAt"]),
			JobNumber: &number, VehiclePlate: &plate, VehicleMake: &make_, VehicleModel: &model, PromiseTime: &promise, Priority: &prio,
			CustomerName: &name, CustomerPhone: &phone, CustomerEmail: &email, ExpectedArrival: &expected},
			workshop.MicrosOf(a.now()))
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{edit: &f}, doneSaved, "edit-heading", "edit-heading")
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
	if code := f.Values["serviceCode"]; code != "" {
		st.ServiceCode = &code
	} else if st.Label == "" {
		v.Add("label", "Choose a service or describe the step.")
	}
	if s := strings.TrimSpace(f.Values["estimatedDuration"]); s != "" && st.ServiceCode == nil {
		n, err := strconv.Atoi(s)
		if err != nil {
			v.Add("estimatedDuration", "Enter the estimate in minutes.")
		}
		st.EstimatedDuration = n
	}
	err = v.Err()
	if err == nil {
		_, err = a.store.CreateStep(r.Context(), d.visibility(), st)
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{addStep: &f}, doneStepAdded, "steps-heading", "steps-heading")
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
func (a *App) patchStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn, kind string,
	allowed func(workshop.Actor, workshop.Step) bool, patch func(d *desk, f form, p *store.StepPatch) error) error {
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
	f := formOf(r, "techIds", "bayId", "updatedAt", "actualStart", "actualEnd")
	f.Values["techIds"] = strings.Join(r.PostForm["techIds"], " ")
	p := store.StepPatch{UpdatedAt: parseVersion(f.Values["updatedAt"]), Precision: time.Minute} // the form's times are to the minute
	if err = patch(d, f, &p); err == nil {
		_, err = a.store.PatchStep(r.Context(), d.visibility(), j.ID, stepID, p, workshop.MicrosOf(a.now()))
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{stepID: stepID, step: &f, assign: kind == doneAssigned}, kind, "step-"+stepID, "step-"+stepID)
}

func (a *App) assignStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.patchStep(w, r, si, doneAssigned, func(ac workshop.Actor, _ workshop.Step) bool { return ac.Role.Allows(scopeJobsWrite) }, func(_ *desk, f form, p *store.StepPatch) error {
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
func (a *App) startStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.patchStep(w, r, si, doneStarted, workshop.Actor.MayWorkStep, func(d *desk, f form, p *store.StepPatch) (err error) {
		s := workshop.StepInProgress
		p.Status = &s
		p.ActualStart, err = d.actualTime(f, "actualStart")
		return err
	})
}

// completeStep completes a step now or at the form's "finished at" time.
func (a *App) completeStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.patchStep(w, r, si, doneCompleted, workshop.Actor.MayWorkStep, func(d *desk, f form, p *store.StepPatch) (err error) {
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

// finishJob delivers or cancels a job against the version the form was
// made from: a job changed since is a conflict, shown again as it is now
// rather than finished unseen. Neither is ever one click: a cancel, and a
// delivery with steps not completed, go to their confirmation first
// unless the form is that confirmation (confirm=yes).
func (a *App) finishJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn, cancel bool) error {
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
	}
	action, kind := "deliver", doneDelivered
	if cancel {
		action, kind = "cancel", doneCancelled
	}
	if r.PostFormValue("confirm") != "yes" && (cancel || len(unfinished(j)) > 0) && !j.Terminal() {
		http.Redirect(w, r, jobPath(j.ID)+"/"+action, http.StatusSeeOther)
		return nil
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
	if err != nil && workshop.ErrorCode(err) != workshop.CodeStaleUpdatedAt && r.PostFormValue("confirm") == "yes" {
		// refused on the confirmation: the reason there, beside the button
		status, known := f.refusal(err, nil)
		if !known {
			return err
		}
		return a.renderConfirm(w, r, d, j, cancel, status, f, tags)
	}
	return a.settleJob(w, r, d, j.ID, err, &f, fs, kind, "job-heading", "finish")
}

func (a *App) deliverJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.finishJob(w, r, si, false)
}

func (a *App) cancelJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.finishJob(w, r, si, true)
}

// unfinished are the labels of the job's steps not completed.
func unfinished(j workshop.Job) []string {
	var out []string
	for _, st := range j.Steps {
		if st.Status != workshop.StepCompleted {
			out = append(out, st.Label+" ("+strings.ToLower(stepStatusLabel(st.Status))+")")
		}
	}
	return out
}

func (a *App) confirmDeliver(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.confirmFinish(w, r, si, false)
}

func (a *App) confirmCancel(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	return a.confirmFinish(w, r, si, true)
}

// confirmFinish asks before a delivery or a cancel: what it does, the
// steps not completed by name, and for a cancel its reasons.
func (a *App) confirmFinish(w http.ResponseWriter, r *http.Request, si *store.SignedIn, cancel bool) error {
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
	}
	if j.Terminal() {
		http.Redirect(w, r, jobPath(j.ID), http.StatusSeeOther)
		return nil
	}
	return a.renderConfirm(w, r, d, j, cancel, http.StatusOK, *newForm(map[string]string{}), nil)
}

func (a *App) renderConfirm(w http.ResponseWriter, r *http.Request, d *desk, j workshop.Job, cancel bool, status int, f form, chosen []string) error {
	f.Values["updatedAt"] = versionOf(j.UpdatedAt)
	data := map[string]any{"Location": d.loc, "Job": d.rowOf(j), "Cancel": cancel, "Unfinished": unfinished(j)}
	if cancel {
		tags, err := a.store.CancelTags(r.Context(), d.loc.ID)
		if err != nil {
			return err
		}
		var opts []option
		for _, t := range tags {
			opts = append(opts, option{Value: t.Tag, Label: t.Label, Checked: slices.Contains(chosen, t.Tag)})
		}
		data["Tags"] = opts
	}
	if status != http.StatusOK {
		pushAddress(w, r, r.URL.Path)
	}
	return a.render(w, r, status, "jobconfirm", view{Header: d.header, Form: f, Data: data})
}

// acceptStep accepts the plan's proposal for one pending step: its
// technicians and bay, as the dispatch view's accept does for it.
func (a *App) acceptStep(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	stepID := r.PathValue("stepID")
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
	}
	if _, found := stepOf(j, stepID); !found {
		return errNoSuchPage
	}
	f := *newForm(map[string]string{})
	plan, err := a.jobPlan(r, d, j)
	if err != nil {
		return err
	}
	if ps, ok := plan.Steps[stepID]; !ok || ps.Pinned {
		err = workshop.Errorf(workshop.CodeStaleUpdatedAt, "")
	} else {
		_, err = a.plans.Apply(r.Context(), d.visibility(), d.loc.ID, []string{stepID}, a.now)
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{stepID: stepID, step: &f}, doneAccepted, "step-"+stepID, "step-"+stepID)
}

// acceptJob accepts the plan's proposals for every pending step of the
// job that has one: the page a new job lands on plans it in one click.
func (a *App) acceptJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, j, err := a.jobWrite(w, r, si, writer(si))
	if err != nil {
		return err
	}
	plan, err := a.jobPlan(r, d, j)
	if err != nil {
		return err
	}
	var stepIDs []string
	for _, st := range j.Steps {
		if ps, ok := plan.Steps[st.ID]; ok && !ps.Pinned && st.Status == workshop.StepPending {
			stepIDs = append(stepIDs, st.ID)
		}
	}
	f := *newForm(map[string]string{})
	if len(stepIDs) == 0 {
		err = workshop.Errorf(workshop.CodeStaleUpdatedAt, "")
	} else {
		_, err = a.plans.Apply(r.Context(), d.visibility(), d.loc.ID, stepIDs, a.now)
	}
	return a.settleJob(w, r, d, j.ID, err, &f, jobForms{actions: &f}, doneAcceptedAll, "job-heading", "vehicle-heading")
}
