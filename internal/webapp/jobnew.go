package webapp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// option is a choice of a select or a group of checkboxes.
type option struct {
	Value, Label string
	Checked      bool
	Disabled     bool
}

var priorityLabels = []struct{ value, label string }{{"low", "Low"}, {"normal", "Normal"}, {"high", "High"}, {"urgent", "Urgent"}}

func priorityOptions(chosen string) []option {
	out := make([]option, len(priorityLabels))
	for i, p := range priorityLabels {
		out[i] = option{Value: p.value, Label: p.label, Checked: p.value == chosen}
	}
	return out
}

// catalogOf is the location's active catalog items as checkboxes.
func (a *App) catalogOf(r *http.Request, d *desk, checked []string) ([]option, error) {
	page, err := a.store.CatalogItems(r.Context(), d.visibility(), workshop.PageRequest{Limit: 200})
	if err != nil {
		return nil, err
	}
	var out []option
	for _, it := range page.Data {
		if it.IsActive {
			out = append(out, option{Value: it.ServiceCode, Label: it.Name + " (" + durationText(it.EstimatedDuration) + ")",
				Checked: slices.Contains(checked, it.ServiceCode)})
		}
	}
	return out, nil
}

var newJobFields = append([]string{"kind", "jobNumber", "vehiclePlate", "vehicleMake", "vehicleModel", "promiseTime", "priority",
	"serviceCodes", "stepLabel", "stepDuration"}, customerFieldNames...)

// newJobPage is the form of a new job.
func (a *App) newJobPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	f := form{Values: map[string]string{"kind": "walk_in", "priority": "normal", "stepDuration": "60"}, Errors: map[string]string{}}
	if d.closing {
		f.Errors[""] = dayClosingMessage
	}
	return a.renderNewJob(w, r, d, http.StatusOK, f, nil)
}

func (a *App) renderNewJob(w http.ResponseWriter, r *http.Request, d *desk, status int, f form, codes []string) error {
	catalog, err := a.catalogOf(r, d, codes)
	if err != nil {
		return err
	}
	quote, err := a.quoteOf(r, d, codes)
	if err != nil {
		return err
	}
	if r.Method == http.MethodPost {
		pushAddress(w, r, newJobPath(d.loc.ID)) // the form again: its address, which a reload can GET
	}
	return a.render(w, r, status, "jobnew", view{Header: d.header, Form: f, Data: map[string]any{
		"Location": d.loc, "Catalog": catalog, "Priorities": priorityOptions(f.Values["priority"]), "Closing": d.closing,
		"Quote": quote}})
}

// createJob makes a job with its first steps in one store call: all of it
// or nothing.
func (a *App) createJob(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, mayWrite(si))
	if err != nil {
		return err
	}
	f := formOf(r, newJobFields...)
	codes := r.PostForm["serviceCodes"]
	if promise := r.PostFormValue("usePromise"); promise != "" { // the quote taken as the promise: the form again, nothing written
		f.Values["promiseTime"] = promise
		return a.renderNewJob(w, r, d, http.StatusOK, f, codes)
	}
	if day := r.PostFormValue("useDay"); day != "" { // a day of the strip: a booking dropped off then, its promise
		dropOff, promise, _ := strings.Cut(day, "|")
		f.Values["kind"], f.Values["expectedArrival"], f.Values["promiseTime"] = "booking", dropOff, promise
		return a.renderNewJob(w, r, d, http.StatusOK, f, codes)
	}
	var v workshop.Validation
	// The application's own rules (the API creates a job of a location
	// alone): a vehicle to work on, and something to do.
	if strings.TrimSpace(f.Values["vehiclePlate"]+f.Values["vehicleMake"]+f.Values["vehicleModel"]) == "" {
		v.Add("vehiclePlate", "Enter the plate, or the make and model of a vehicle without one.")
	}
	if len(codes) == 0 && strings.TrimSpace(f.Values["stepLabel"]) == "" {
		v.Add("serviceCodes", "Choose a step from the catalog, or describe one below.")
	}
	if f.Values["kind"] != "walk_in" && f.Values["kind"] != "booking" {
		v.Add("kind", "Choose walk-in or booking.")
	}
	number, promise := d.jobFields(&v, f)
	name, phone, email, expected := d.customerFields(&v, f)
	now := workshop.MicrosOf(a.now())
	j := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: si.Member.Org.ID, LocationID: d.loc.ID, JobNumber: number,
		VehiclePlate: optionalText(f.Values["vehiclePlate"]), VehicleMake: optionalText(f.Values["vehicleMake"]),
		VehicleModel: optionalText(f.Values["vehicleModel"]), PromiseTime: promise, Priority: f.Values["priority"],
		Source: "other", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{},
		CustomerName: name, CustomerPhone: phone, CustomerEmail: email, ExpectedArrival: expected}
	if f.Values["kind"] == "walk_in" {
		j.Source, j.ExpectedArrival = "walk_in", nil // a walk-in is here: no drop-off to expect
	}
	newStep := func() workshop.Step {
		at := now + workshop.Micros(len(j.Steps)) // steps keep the order they were chosen in
		return workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: j.ID, SchedulingMode: "sequential", TechIDs: []string{},
			Status: workshop.StepPending, CreatedAt: at, UpdatedAt: at}
	}
	for _, code := range codes {
		st := newStep()
		st.ServiceCode = &code
		j.Steps = append(j.Steps, st)
	}
	if label := strings.TrimSpace(f.Values["stepLabel"]); label != "" {
		st := newStep()
		st.Label = label
		n, err := strconv.Atoi(strings.TrimSpace(f.Values["stepDuration"]))
		if err != nil {
			v.Add("stepDuration", "Enter the step's estimate in minutes.")
		}
		st.EstimatedDuration = n
		j.Steps = append(j.Steps, st)
	}
	err = v.Err()
	var res store.JobCreate
	if err == nil && len(f.Errors) == 0 {
		res, err = a.store.CreateJob(r.Context(), j, j.Source == "walk_in")
	}
	aliases := map[string]string{"serviceCode": "serviceCodes", "label": "stepLabel", "estimatedDuration": "stepDuration"}
	return a.settle(w, r, err, &f, aliases, jobPath(res.Job.ID), func(status int) error { return a.renderNewJob(w, r, d, status, f, codes) })
}
