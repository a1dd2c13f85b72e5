package webapp

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// stepView is a step on its job's page: one timeline (planned, actual),
// the plan's proposal while it is pending, and its forms.
type stepView struct {
	ID, Label, Status, StatusLabel, Version string
	Estimate                                string // h:mm
	TechNames, BayName                      string
	Planned, Actual                         string
	Proposal                                *proposal // the plan's, not yet accepted
	Unplaced                                string    // why the plan cannot place it
	WaitsFor, WaitsForLabel                 string    // the unplaced step it waits for
	Done                                    string    // what the action just made on it did
	MayAssign, MayStart, MayComplete        bool
	Form                                    form
	Techs, Bays                             []option
}

// proposal is what the location's plan proposes for a pending step.
type proposal struct{ Techs, Bay, When string }

// timeRow is one line of the job's holds, delays or history.
type timeRow struct{ When, What string }

// jobPageData is a job's page.
type jobPageData struct {
	Location      workshop.Location
	Job           jobRow
	Version       string
	Arrival       string
	Priority      string
	ExternalKey   string
	CancelReasons string
	Customer      string // name · phone · email, those known
	Expected      string // the booking's drop-off time

	Open, MayWrite bool
	Closing        bool
	Timeline       jobTimeline
	Steps          []stepView
	Unfinished     []string // the labels of the steps not completed (deliver asks first)
	Holds, Delays  []timeRow
	History        []timeRow
	Done           string // what the job action just made did ("RO-... delivered.")
	Proposals      int    // pending steps the plan proposes a technician, bay and time for
	Edit, AddStep  form
	Actions        form // deliver and cancel
	Priorities     []option
	Catalog        []option
	Tags           []option
	Notice         string // a refusal whose form the page does not show (the job is finished)
}

// jobTimeline is the job's one timeline: its promise, the plan's
// projection of it, and what happened.
type jobTimeline struct {
	Promise, Planned, Actual string
	AtRisk                   bool
	Outlook                  string // "on track", "0:45 late", or why it cannot be planned
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

// jobForms are the forms of a job page a write failed on, to show with
// their values and errors; nil: made from the job. A step's forms (start,
// complete, assign, accept) share step: its ticks and bay come back as
// sent only when the refused write was the assignment itself (assign);
// beside any other refusal the assign form shows the step's assignment as
// it is, so that a click on Assign never wipes it.
type jobForms struct {
	edit, addStep, actions *form
	stepID                 string
	step                   *form
	assign                 bool
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

// jobNames are the names a job's page shows for ids.
type jobNames struct{ techs, bays map[string]string }

func (n jobNames) techList(ids []string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = n.techs[id]
	}
	return strings.Join(names, ", ")
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
	names := jobNames{techs: map[string]string{}, bays: map[string]string{}}
	for _, t := range techs.Data {
		names.techs[t.ID] = t.Name
	}
	for _, b := range bays.Data {
		names.bays[b.ID] = b.Name
	}
	// The detail and the proposals are of one plan: the location's of this
	// minute, which planning keeps.
	detail, err := a.plans.JobDetail(ctx, store.Visibility{OrgID: d.si.Member.Org.ID}, j.ID, a.now())
	if err != nil {
		return err
	}
	plan, err := a.jobPlan(r, d, j)
	if err != nil {
		return err
	}
	write := mayWrite(d.si)
	p := jobPageData{Location: d.loc, Job: d.rowOf(j), Version: versionOf(j.UpdatedAt), Priority: j.Priority,
		ExternalKey: deref(j.ExternalKey), CancelReasons: reasonLabels(j.CancelReasons, tags),
		Open: !j.Terminal(), MayWrite: write && !j.Terminal(), Closing: d.closing, Catalog: catalog,
		Timeline: d.timelineOf(detail, plan)}
	if j.ArrivalTime != nil {
		p.Arrival = d.when(j.ArrivalTime.Time)
	}
	for _, t := range tags {
		if t.Retired {
			continue // no cancel may give it
		}
		p.Tags = append(p.Tags, option{Value: t.Tag, Label: t.Label, Checked: slices.Contains(fs.tags, t.Tag)})
	}
	p.Edit = formOr(fs.edit, d.customerValues(j, map[string]string{"jobNumber": j.JobNumber, "vehiclePlate": deref(j.VehiclePlate),
		"vehicleMake": deref(j.VehicleMake), "vehicleModel": deref(j.VehicleModel), "promiseTime": d.localInput(j.PromiseTime),
		"priority": j.Priority}))
	p.Customer = strings.Join(slices.DeleteFunc([]string{deref(j.CustomerName), deref(j.CustomerPhone), deref(j.CustomerEmail)},
		func(s string) bool { return s == "" }), " · ")
	if j.ExpectedArrival != nil {
		p.Expected = d.when(*j.ExpectedArrival)
	}
	p.Edit.Values["updatedAt"] = versionOf(j.UpdatedAt) // a conflict shows the current version to send again
	p.Priorities = priorityOptions(p.Edit.Values["priority"])
	p.AddStep = formOr(fs.addStep, map[string]string{"serviceCode": "", "label": "", "estimatedDuration": "60"})
	p.Actions = formOr(fs.actions, map[string]string{"reasonTags": ""})
	p.Actions.Values["updatedAt"] = versionOf(j.UpdatedAt)

	p.Holds, p.Delays = d.holdsAndDelays(detail)
	for i := len(detail.History) - 1; i >= 0; i-- { // newest first
		h := detail.History[i]
		p.History = append(p.History, timeRow{When: d.when(h.At.Time()), What: statusLabel(h.Status)})
	}
	stepDetails := map[string]workshop.StepDetail{}
	labels := map[string]string{}
	for i, st := range detail.Job.Steps {
		stepDetails[st.ID], labels[st.ID] = detail.Steps[i], st.Label
	}
	done := doneOf(r)
	for _, st := range j.Steps {
		sv := d.stepViewOf(j, st, p.MayWrite, stepDetails[st.ID], plan, names)
		if u := stepDetails[st.ID].Unplaced; u != nil && u.Reason == workshop.UnplacedAfter {
			sv.WaitsFor, sv.WaitsForLabel = u.BlockedBy, labels[u.BlockedBy]
		}
		if st.Status != workshop.StepCompleted {
			p.Unfinished = append(p.Unfinished, st.Label)
		}
		if done.stepID == st.ID {
			sv.Done = done.stepText(sv)
		}
		chosenTechs, chosenBay := st.TechIDs, deref(st.BayID)
		sv.Form = *newForm(map[string]string{})
		if fs.stepID == st.ID && fs.step != nil {
			sv.Form = formOr(fs.step, sv.Form.Values) // after a stale edit: the step as it is now
			if fs.assign && fs.step.Values != nil {
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
	p.Done = done.jobText(j, p.Steps)
	for _, sv := range p.Steps {
		if sv.Proposal != nil {
			p.Proposals++
		}
	}
	if !p.MayWrite { // the forms are not shown: their refusal goes on top
		for _, f := range []*form{fs.edit, fs.addStep, fs.actions} {
			if f != nil && f.Errors[""] != "" {
				p.Notice = f.Errors[""]
			}
		}
	}
	if status != http.StatusOK {
		pushAddress(w, r, jobPath(j.ID)) // a refused post: the address bar shows the job, which a reload can GET
	}
	return a.render(w, r, status, "job", view{Header: d.header, Data: p})
}

// stepViewOf is a step's view without its forms: its facts, its one
// timeline (sd, the detail's) and the plan's proposal.
func (d *desk) stepViewOf(j workshop.Job, st workshop.Step, write bool, sd workshop.StepDetail, plan workshop.JobInPlan, names jobNames) stepView {
	ac := actorOf(d.si)
	sv := stepView{ID: st.ID, Label: st.Label, Status: st.Status, StatusLabel: stepStatusLabel(st.Status), Version: versionOf(st.UpdatedAt),
		Estimate: durationText(st.EstimatedDuration), TechNames: names.techList(st.TechIDs),
		MayAssign:   write && st.Status != workshop.StepCompleted,
		MayStart:    !j.Terminal() && st.Status == workshop.StepPending && ac.MayWorkStep(st),
		MayComplete: !j.Terminal() && st.Status == workshop.StepInProgress && ac.MayWorkStep(st)}
	if st.BayID != nil {
		sv.BayName = names.bays[*st.BayID]
	}
	sv.Planned, sv.Actual = d.spanOf(sd.PlannedStart, sd.PlannedEnd), d.spanOf(sd.ActualStart, sd.ActualEnd)
	if ps, ok := plan.Steps[st.ID]; ok && !ps.Pinned && st.Status == workshop.StepPending && !j.Terminal() {
		sv.Proposal = &proposal{Techs: names.techList(ps.TechIDs), Bay: names.bays[ps.BayID], When: d.span(ps.Start, ps.End)}
	}
	if u := sd.Unplaced; u != nil && u.Reason != workshop.UnplacedAfter {
		sv.Unplaced = unplacedReasons[u.Reason]
	}
	return sv
}

var stepStatusLabels = map[string]string{workshop.StepPending: "Pending", workshop.StepInProgress: "In progress", workshop.StepCompleted: "Completed"}

func stepStatusLabel(s string) string {
	if l, ok := stepStatusLabels[s]; ok {
		return l
	}
	return s
}

// span is two instants as one stretch: the end's day is not repeated.
func (d *desk) span(from, to time.Time) string {
	end := d.when(to)
	if from.In(d.zone).Format(time.DateOnly) == to.In(d.zone).Format(time.DateOnly) {
		end = clockText(to, d.zone)
	}
	return d.when(from) + " – " + end
}

// spanOf is from – to, "from – now" while it lasts; "" without a start.
func (d *desk) spanOf(from, to *time.Time) string {
	switch {
	case from == nil:
		return ""
	case to == nil:
		return d.when(*from) + " – now"
	}
	return d.span(*from, *to)
}

// holdsAndDelays are the detail's holds and delays as the page lists them.
func (d *desk) holdsAndDelays(dt workshop.JobDetail) (holds, delays []timeRow) {
	for _, h := range dt.Holds {
		end := "still waiting"
		if h.End != nil {
			end = "until " + d.when(*h.End)
		}
		holds = append(holds, timeRow{When: d.when(h.Start), What: "Waiting, " + end})
	}
	for _, dl := range dt.Delays {
		what := durationText(dl.Minutes) + " over its estimate"
		if dl.Ongoing {
			what += ", still running"
		}
		for _, st := range dt.Job.Steps {
			if st.ID == dl.StepID {
				what = st.Label + ": " + what
			}
		}
		delays = append(delays, timeRow{When: d.when(dl.End), What: what})
	}
	return holds, delays
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
