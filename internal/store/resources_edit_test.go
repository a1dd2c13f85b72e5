package store_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// An edit made from the current version changes the technician and moves
// updatedAt on; one made from an older version (the API's status PATCH
// came between) is stale; the same values again change nothing.
func TestEditTechnician(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		tec := e.technician(t, e.loc.ID, 2)
		worker := createUser(t, e.st, e.org.ID, workshop.RoleTechnician)
		e.tick()
		edit := store.TechnicianEdit{UpdatedAt: tec.UpdatedAt, Name: "Jonas Weber", Skills: []string{"ev", "brakes", "ev"}, WIPLimit: 3,
			UserID: worker.ID}
		got, err := e.st.EditTechnician(t.Context(), e.v, tec.ID, edit, e.now())
		if err != nil {
			t.Fatalf("EditTechnician: %v", err)
		}
		if got.Name != "Jonas Weber" || !slices.Equal(got.Skills, []string{"ev", "brakes"}) || got.WIPLimit != 3 || got.UserID != worker.ID {
			t.Errorf("edited = %+v, want Jonas Weber, [ev brakes], 3, user %s", got, worker.ID)
		}
		if got.UpdatedAt <= tec.UpdatedAt {
			t.Errorf("updatedAt = %v, want after %v", got.UpdatedAt, tec.UpdatedAt)
		}
		read, err := e.st.Technician(t.Context(), e.v, tec.ID)
		if err != nil || read.UpdatedAt != got.UpdatedAt || read.UserID != worker.ID {
			t.Errorf("read back = %+v, %v; want the edit", read, err)
		}

		edit.UpdatedAt = got.UpdatedAt
		same, err := e.st.EditTechnician(t.Context(), e.v, tec.ID, edit, e.now()+1000)
		if err != nil || same.UpdatedAt != got.UpdatedAt {
			t.Errorf("the same edit again: updatedAt %v, %v; want %v kept", same.UpdatedAt, err, got.UpdatedAt)
		}

		e.tick()
		if _, err := e.st.PatchTechnicianStatus(t.Context(), e.v, tec.ID, got.UpdatedAt, "on_break", e.now()); err != nil {
			t.Fatalf("PatchTechnicianStatus: %v", err)
		}
		edit.Name = "Someone else"
		_, err = e.st.EditTechnician(t.Context(), e.v, tec.ID, edit, e.now())
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
	})
}

// A technician's edit is checked: name, limit, and the user, who must be
// a technician-role user of the organisation working as no one else.
func TestEditTechnicianRefusals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		tec, other := e.technician(t, e.loc.ID, 2), e.technician(t, e.loc.ID, 2)
		advisor := createUser(t, e.st, e.org.ID, workshop.RoleAdvisor)
		worker := createUser(t, e.st, e.org.ID, workshop.RoleTechnician)
		if _, err := e.st.EditTechnician(t.Context(), e.v, other.ID, store.TechnicianEdit{UpdatedAt: other.UpdatedAt, Name: "Aylin",
			WIPLimit: 2, UserID: worker.ID}, e.now()); err != nil {
			t.Fatalf("give %s a user: %v", other.ID, err)
		}
		foreign := createOrg(t, e.st, workshop.PlanPro)
		outsider := createUser(t, e.st, foreign.ID, workshop.RoleTechnician)
		for _, tc := range []struct {
			name  string
			edit  store.TechnicianEdit
			field string
		}{
			{"blank name", store.TechnicianEdit{Name: "  ", WIPLimit: 2}, "name"},
			{"limit 0", store.TechnicianEdit{Name: "Jonas", WIPLimit: 0}, "wipLimit"},
			{"limit 21", store.TechnicianEdit{Name: "Jonas", WIPLimit: 21}, "wipLimit"},
			{"an advisor", store.TechnicianEdit{Name: "Jonas", WIPLimit: 2, UserID: advisor.ID}, "user"},
			{"another organisation's user", store.TechnicianEdit{Name: "Jonas", WIPLimit: 2, UserID: outsider.ID}, "user"},
			{"an unknown user", store.TechnicianEdit{Name: "Jonas", WIPLimit: 2, UserID: "usr_missing"}, "user"},
			{"a user working as another", store.TechnicianEdit{Name: "Jonas", WIPLimit: 2, UserID: worker.ID}, "user"},
		} {
			tc.edit.UpdatedAt = tec.UpdatedAt
			_, err := e.st.EditTechnician(t.Context(), e.v, tec.ID, tc.edit, e.now())
			wantInvalid(t, err, tc.field)
		}
		_, err := e.st.EditTechnician(t.Context(), store.Visibility{OrgID: foreign.ID}, tec.ID,
			store.TechnicianEdit{UpdatedAt: tec.UpdatedAt, Name: "Jonas", WIPLimit: 2}, e.now())
		wantCode(t, err, workshop.CodeNotFound)
	})
}

// A technician assigned to an open step, or clocked in, is not deleted,
// and the refusal names what holds it; once the work is done it is.
func TestDeleteUnusedTechnician(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		tec := e.technician(t, e.loc.ID, 2)
		j := e.createJob(t, e.loc.ID)
		techs := []string{tec.ID}
		st := e.patchStep(t, e.createStep(t, j.ID, "Brakes"), store.StepPatch{TechIDs: &techs})

		err := e.st.DeleteUnusedTechnician(t.Context(), e.v, tec.ID)
		wantCode(t, err, workshop.CodeInvalidTransition)
		if want := "Step 'Brakes' of " + j.JobNumber + " is assigned to this technician"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("refusal = %v, want it to say %q", err, want)
		}

		e.setStepStatus(t, e.setStepStatus(t, st, workshop.StepInProgress), workshop.StepCompleted)
		if _, err := e.st.ClockIn(t.Context(), e.v, tec.ID, e.clk.Now()); err != nil {
			t.Fatalf("ClockIn: %v", err)
		}
		err = e.st.DeleteUnusedTechnician(t.Context(), e.v, tec.ID)
		if err == nil || !strings.Contains(err.Error(), "is clocked in") {
			t.Errorf("refusal of a clocked-in technician = %v, want it to say so", err)
		}
		e.clk.Advance(time.Minute)
		if _, err := e.st.ClockOut(t.Context(), e.v, tec.ID, e.clk.Now()); err != nil {
			t.Fatalf("ClockOut: %v", err)
		}
		if err := e.st.DeleteUnusedTechnician(t.Context(), e.v, tec.ID); err != nil {
			t.Fatalf("delete of a technician whose work is done: %v", err)
		}
		_, err = e.st.Technician(t.Context(), e.v, tec.ID)
		wantCode(t, err, workshop.CodeNotFound)
		wantCode(t, e.st.DeleteUnusedTechnician(t.Context(), e.v, tec.ID), workshop.CodeNotFound)
	})
}

// A bay's edit is versioned like the technician's and leaves its status
// (and so bay.status_changed) to PatchBayStatus; a bay an open step uses
// is not deleted, one whose job was cancelled is.
func TestEditAndDeleteBay(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		b := e.bay(t, e.loc.ID)
		e.events(t)
		e.tick()
		got, err := e.st.EditBay(t.Context(), e.v, b.ID, store.BayEdit{UpdatedAt: b.UpdatedAt, Name: "Lift 2",
			Equipment: []string{"lift"}, Services: []string{"tyres", "brakes"}}, e.now())
		if err != nil {
			t.Fatalf("EditBay: %v", err)
		}
		if got.Name != "Lift 2" || !slices.Equal(got.Services, []string{"tyres", "brakes"}) || got.UpdatedAt <= b.UpdatedAt {
			t.Errorf("edited = %+v, want Lift 2 with tyres, brakes and a later updatedAt", got)
		}
		if names := eventNames(e.events(t)); len(names) != 0 {
			t.Errorf("an edit emitted %v, want nothing", names)
		}
		_, err = e.st.EditBay(t.Context(), e.v, b.ID, store.BayEdit{UpdatedAt: b.UpdatedAt, Name: "Lift 3"}, e.now())
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		_, err = e.st.EditBay(t.Context(), e.v, b.ID, store.BayEdit{UpdatedAt: got.UpdatedAt, Name: ""}, e.now())
		wantInvalid(t, err, "name")

		j := e.createJob(t, e.loc.ID)
		bay := &b.ID
		e.patchStep(t, e.createStep(t, j.ID, "Tyres"), store.StepPatch{BayID: &bay})
		err = e.st.DeleteUnusedBay(t.Context(), e.v, b.ID)
		if want := "Step 'Tyres' of " + j.JobNumber + " is in this bay"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("refusal = %v, want it to say %q", err, want)
		}
		if _, err := e.st.CancelJob(t.Context(), e.v, j.ID, nil, e.now()); err != nil {
			t.Fatalf("CancelJob: %v", err)
		}
		if err := e.st.DeleteUnusedBay(t.Context(), e.v, b.ID); err != nil {
			t.Fatalf("delete of a bay only a cancelled job used: %v", err)
		}
		_, err = e.st.Bay(t.Context(), e.v, b.ID)
		wantCode(t, err, workshop.CodeNotFound)
	})
}

// The application makes a catalog item once per code, edits it by the
// put's rule against its version (a put between makes the edit stale),
// and deletes it only when no open step was made from it.
func TestCatalogItemEdits(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		now := e.now()
		item := workshop.CatalogItem{ID: workshop.NewID(workshop.PrefixCatalogItem), OrgID: e.org.ID, LocationID: e.loc.ID, ServiceCode: "OIL",
			Name: "Oil change", EstimatedDuration: 45, RequiredSkills: []string{}, IsActive: true, CreatedAt: now, UpdatedAt: now}
		if _, err := e.st.CreateCatalogItem(t.Context(), item); err != nil {
			t.Fatalf("CreateCatalogItem: %v", err)
		}
		again := item
		again.ID = workshop.NewID(workshop.PrefixCatalogItem)
		_, err := e.st.CreateCatalogItem(t.Context(), again)
		wantInvalid(t, err, "serviceCode")
		bad := item
		bad.ServiceCode, bad.EstimatedDuration = "no spaces", 10081
		_, err = e.st.CreateCatalogItem(t.Context(), bad)
		wantInvalid(t, err, "serviceCode")

		e.tick()
		in := item
		in.Name, in.EstimatedDuration, in.RequiredSkills, in.IsActive, in.UpdatedAt = "Oil and filter", 60, []string{"oil"}, false, e.now()
		got, err := e.st.EditCatalogItem(t.Context(), e.v, in, item.UpdatedAt)
		if err != nil {
			t.Fatalf("EditCatalogItem: %v", err)
		}
		if got.Name != "Oil and filter" || got.EstimatedDuration != 60 || got.IsActive || got.UpdatedAt <= item.UpdatedAt {
			t.Errorf("edited = %+v, want Oil and filter, 60 min, inactive, a later updatedAt", got)
		}
		e.tick()
		put := got
		put.Name, put.UpdatedAt = "Oil (synced)", e.now()
		if _, err := e.st.PutCatalogItem(t.Context(), put); err != nil {
			t.Fatalf("PutCatalogItem: %v", err)
		}
		_, err = e.st.EditCatalogItem(t.Context(), e.v, in, got.UpdatedAt)
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		_, err = e.st.CatalogItem(t.Context(), store.Visibility{OrgID: createOrg(t, e.st, workshop.PlanPro).ID}, e.loc.ID, "OIL")
		wantCode(t, err, workshop.CodeNotFound)

		// the item is active again, so that a step can be made from it
		cur, err := e.st.CatalogItem(t.Context(), e.v, e.loc.ID, "OIL")
		if err != nil {
			t.Fatalf("CatalogItem: %v", err)
		}
		in.IsActive, in.UpdatedAt = true, e.now()+1
		if _, err := e.st.EditCatalogItem(t.Context(), e.v, in, cur.UpdatedAt); err != nil {
			t.Fatalf("activate: %v", err)
		}
		j := e.createJob(t, e.loc.ID)
		st := e.newStep(j.ID, "")
		code := "OIL"
		st.ServiceCode, st.EstimatedDuration = &code, 0
		if _, err := e.st.CreateStep(t.Context(), e.v, st); err != nil {
			t.Fatalf("CreateStep from the catalog: %v", err)
		}
		err = e.st.DeleteUnusedCatalogItem(t.Context(), e.v, e.loc.ID, "OIL")
		if want := "of " + j.JobNumber + " is this service"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("refusal = %v, want it to say %q", err, want)
		}
		if _, err := e.st.DeliverJob(t.Context(), e.v, j.ID, e.now()); err != nil {
			t.Fatalf("DeliverJob: %v", err)
		}
		if err := e.st.DeleteUnusedCatalogItem(t.Context(), e.v, e.loc.ID, "OIL"); err != nil {
			t.Fatalf("delete of an item only a delivered job used: %v", err)
		}
		_, err = e.st.CatalogItem(t.Context(), e.v, e.loc.ID, "OIL")
		wantCode(t, err, workshop.CodeNotFound)
	})
}

// A delete and an assignment of the same technician at once: one of them
// is refused, never neither (a deleted technician with an open step).
func TestDeleteUnusedTechnicianRacesAssignment(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		j := e.createJob(t, e.loc.ID)
		for i := range 8 {
			tec := e.technician(t, e.loc.ID, 2)
			st := e.createStep(t, j.ID, "Race")
			techs := []string{tec.ID}
			var deleteErr, assignErr error
			var wg sync.WaitGroup
			wg.Go(func() { deleteErr = e.st.DeleteUnusedTechnician(t.Context(), e.v, tec.ID) })
			wg.Go(func() {
				_, assignErr = e.st.PatchStep(t.Context(), e.v, j.ID, st.ID, store.StepPatch{UpdatedAt: st.UpdatedAt, TechIDs: &techs}, e.now())
			})
			wg.Wait()
			if deleteErr == nil && assignErr == nil {
				t.Fatalf("round %d: the technician was deleted and assigned at once", i)
			}
			if deleteErr != nil && assignErr != nil {
				t.Errorf("round %d: both refused: delete %v, assign %v", i, deleteErr, assignErr)
			}
		}
	})
}
