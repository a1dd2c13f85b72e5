package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// myWorkPath is a technician's list of work.
const myWorkPath = "/my/work"

// assignedView is a step of a technician's list of work.
type assignedView struct {
	JobID, JobNumber, Plate string
	ID, Label, Version      string
	Status, StatusLabel     string
	Started                 string // when it started, in the location's zone
	MayStart, MayComplete   bool
}

// myWork is the steps assigned to the technician the user works as, in
// progress first, each with its start or complete button (posted to the
// job desk's step actions, which come back here). A user who works as no
// technician is told so.
func (a *App) myWork(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	techID := si.Member.TechnicianID
	if techID == "" {
		h, err := a.headerOf(r, si, "")
		if err != nil {
			return err
		}
		return a.render(w, r, http.StatusOK, "mywork", view{Header: h, Data: map[string]any{"Technician": nil}})
	}
	tech, err := a.store.Technician(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, techID)
	if err != nil {
		return err
	}
	d, err := a.deskOf(r, si, tech.LocationID)
	if err != nil {
		return err
	}
	steps, err := a.store.TechnicianSteps(r.Context(), techID)
	if err != nil {
		return err
	}
	views := make([]assignedView, 0, len(steps))
	for _, as := range steps {
		st := as.Step
		v := assignedView{JobID: st.JobID, JobNumber: as.JobNumber, Plate: deref(as.VehiclePlate), ID: st.ID, Label: st.Label,
			Version: versionOf(st.UpdatedAt), Status: st.Status, StatusLabel: stepStatusLabel(st.Status),
			MayStart:    st.Status == workshop.StepPending && !d.closing && actorOf(si).MayWorkStep(st),
			MayComplete: st.Status == workshop.StepInProgress && !d.closing && actorOf(si).MayWorkStep(st)}
		if st.StartedAt != nil {
			v.Started = d.when(st.StartedAt.Time())
		}
		views = append(views, v)
	}
	return a.render(w, r, http.StatusOK, "mywork", view{Header: d.header, Data: map[string]any{"Technician": tech, "Steps": views,
		"Next": myWorkPath}})
}
