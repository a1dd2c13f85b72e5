package main

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// resourceActions are the pages and forms of technicians, bays and the
// catalog. Edits are sent without a version, so that an allowed one is a
// conflict (409) that changes nothing; deletes take a record made for
// each, so that the world's technicians, bay and item stay.
var resourceActions = []appAction{
	{name: "technicians", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/technicians" }, allowed: jobWriters},
	{name: "create technician", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/technicians" },
		form: func(*matrixWorld) url.Values { return url.Values{"name": {"Matrix tech"}, "wipLimit": {"2"}} }, allowed: adminsOnly},
	{name: "technician page", method: "GET", path: func(m *matrixWorld) string { return "/technicians/" + m.other.ID }, allowed: jobWriters},
	{name: "edit technician", method: "POST", path: func(m *matrixWorld) string { return "/technicians/" + m.other.ID + "/edit" },
		form: func(*matrixWorld) url.Values { return url.Values{"name": {"Aylin"}, "wipLimit": {"2"}} }, allowed: adminsOnly},
	{name: "technician status", method: "POST", path: func(m *matrixWorld) string { return "/technicians/" + m.other.ID + "/status" },
		form: func(*matrixWorld) url.Values { return url.Values{"status": {"on_break"}} }, allowed: adminsOnly},
	{name: "delete technician", method: "POST", path: func(m *matrixWorld) string { return "/technicians/" + spareTechnician(m) + "/delete" },
		form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: adminsOnly},

	{name: "bays", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/bays" }, allowed: jobWriters},
	{name: "create bay", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/bays" },
		form: func(*matrixWorld) url.Values { return url.Values{"name": {"Matrix bay"}} }, allowed: adminsOnly},
	{name: "bay page", method: "GET", path: func(m *matrixWorld) string { return "/bays/" + m.bay.ID }, allowed: jobWriters},
	{name: "edit bay", method: "POST", path: func(m *matrixWorld) string { return "/bays/" + m.bay.ID + "/edit" },
		form: func(*matrixWorld) url.Values { return url.Values{"name": {"Bay 1"}} }, allowed: adminsOnly},
	{name: "bay maintenance", method: "POST", path: func(m *matrixWorld) string { return "/bays/" + m.bay.ID + "/status" },
		form: func(*matrixWorld) url.Values { return url.Values{"status": {"maintenance"}} }, allowed: adminsOnly},
	{name: "delete bay", method: "POST", path: func(m *matrixWorld) string { return "/bays/" + spareBay(m) + "/delete" },
		form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: adminsOnly},

	{name: "catalog", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/catalog" }, allowed: jobWriters},
	{name: "create catalog item", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/catalog" },
		form: func(*matrixWorld) url.Values {
			return url.Values{"serviceCode": {workshop.NewID("MX")}, "name": {"Matrix service"}, "estimatedDuration": {"20"}}
		}, allowed: jobWriters},
	{name: "catalog item page", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/catalog/" + m.catalog },
		allowed: jobWriters},
	{name: "edit catalog item", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/catalog/" + m.catalog + "/edit" },
		form: func(*matrixWorld) url.Values {
			return url.Values{"name": {"Oil change"}, "estimatedDuration": {"30"}, "isActive": {"on"}}
		},
		allowed: jobWriters},
	{name: "delete catalog item", method: "POST", path: func(m *matrixWorld) string {
		code := workshop.NewID("DEL")
		m.w.catalogItem(m.org.ID, m.loc.ID, code, "Spare service", 10)
		return "/locations/" + m.loc.ID + "/catalog/" + code + "/delete"
	}, form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: jobWriters},
}

func init() { appActions = append(appActions, resourceActions...) }

// spareTechnician and spareBay make a record nothing uses, to delete.
func spareTechnician(m *matrixWorld) string {
	t, err := m.w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: m.loc.ID, Name: "Spare", WIPLimit: 1})
	if err != nil {
		m.w.t.Fatal(err)
	}
	return t.ID
}

func spareBay(m *matrixWorld) string {
	b, err := m.w.op.CreateBay(context.Background(), m.loc.ID, "Spare bay", nil, nil)
	if err != nil {
		m.w.t.Fatal(err)
	}
	return b.ID
}

// resourceWorld is an organisation with an owner, an advisor and a
// technician user signed in to the application, and a job with a step.
type resourceWorld struct {
	w                      *testWorld
	org                    *testOrg
	loc                    workshop.Location
	srv                    *apitest.Server
	owner, advisor, worker *browser
	workerUser             workshop.User
	job                    workshop.Job
	step                   workshop.Step
}

func newResourceWorld(t *testing.T, db storetest.Database) *resourceWorld {
	t.Helper()
	rw := &resourceWorld{w: newWorld(t, db.URL)}
	rw.org = rw.w.org("Resource Motors", "pro", 1)
	rw.loc = rw.org.Locations[0]
	appUser(t, rw.w, rw.org.ID, "boss@example.com", workshop.RoleOwner, testPassword)
	appUser(t, rw.w, rw.org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
	rw.workerUser = appUser(t, rw.w, rw.org.ID, "tech@example.com", workshop.RoleTechnician, testPassword)
	rw.job = rw.w.job(rw.org.ID, rw.loc.ID)
	rw.step = rw.w.step(rw.org.ID, rw.job.ID)
	rw.srv = startServer(t, db.URL)
	for _, u := range []struct {
		b     **browser
		email string
	}{{&rw.owner, "boss@example.com"}, {&rw.advisor, "advisor@example.com"}, {&rw.worker, "tech@example.com"}} {
		*u.b = newBrowser(t, rw.srv.URL)
		(*u.b).login(u.email, testPassword, "").want(t, u.email+" signs in", http.StatusSeeOther, "/")
	}
	return rw
}

// assign gives the world's step to a technician and a bay (either "").
func (rw *resourceWorld) assign(t *testing.T, techID, bayID string) {
	t.Helper()
	techs := []string{}
	if techID != "" {
		techs = append(techs, techID)
	}
	bay := &bayID
	if bayID == "" {
		bay = nil
	}
	st, err := rw.w.st.PatchStep(context.Background(), store.Visibility{OrgID: rw.org.ID}, rw.job.ID, rw.step.ID,
		store.StepPatch{UpdatedAt: rw.step.UpdatedAt, TechIDs: &techs, BayID: &bay}, workshop.MicrosOf(time.Now()))
	if err != nil {
		t.Fatalf("assign the step: %v", err)
	}
	rw.step = st
}

// finishStep completes the world's step: nothing open uses its technician
// or bay any more.
func (rw *resourceWorld) finishStep(t *testing.T) {
	t.Helper()
	for _, s := range []string{workshop.StepInProgress, workshop.StepCompleted} {
		st, err := rw.w.st.PatchStep(context.Background(), store.Visibility{OrgID: rw.org.ID}, rw.job.ID, rw.step.ID,
			store.StepPatch{UpdatedAt: rw.step.UpdatedAt, Status: &s}, workshop.MicrosOf(time.Now()))
		if err != nil {
			t.Fatalf("step to %s: %v", s, err)
		}
		rw.step = st
	}
}

// api sends a request to the API with the organisation's key.
func (rw *resourceWorld) api(t *testing.T, method, path, body string) *apitest.Response {
	t.Helper()
	return apitest.Call(t, rw.srv.URL, apitest.Request{Method: method, Path: path, Key: rw.org.Key.Key, Body: body})
}

// inUse is how a page says which step of the job holds a record.
func inUse(label, number, how string) string {
	return html.EscapeString(fmt.Sprintf("Step '%s' of %s %s", label, number, how))
}

// TestAppTechnicians creates, edits, sets the status of and deletes a
// technician in the application: refused values beside their fields,
// an edit made stale by another tab and by the API's PATCH, a delete
// refused while a step is assigned, and who may see and do what.
func TestAppTechnicians(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		rw := newResourceWorld(t, db)
		list := "/locations/" + rw.loc.ID + "/technicians"

		rw.worker.get(list).want(t, "a technician opens the list", http.StatusForbidden, "", "Refused")
		rw.advisor.get(list).want(t, "an advisor reads the list", http.StatusOK, "", "<h1>Technicians")
		rw.advisor.get(list).wantNot(t, "an advisor's list", "New technician")
		rw.advisor.post(list, url.Values{"name": {"Nope"}, "wipLimit": {"2"}}).want(t, "an advisor creates", http.StatusForbidden, "")

		rw.owner.get(list).want(t, "the owner's list", http.StatusOK, "", "New technician", `<label for="wipLimit">`,
			`<option value="`+rw.workerUser.ID+`">tech@example.com</option>`)
		for _, tc := range []struct {
			name  string
			form  url.Values
			field string
		}{
			{"no name", url.Values{"name": {" "}, "wipLimit": {"2"}}, "name"},
			{"a limit of 21", url.Values{"name": {"Jonas"}, "wipLimit": {"21"}}, "wipLimit"},
			{"a limit in words", url.Values{"name": {"Jonas"}, "wipLimit": {"two"}}, "wipLimit"},
			{"an unknown user to sign in as", url.Values{"name": {"Jonas"}, "wipLimit": {"2"}, "userId": {"usr_missing"}}, "userId"},
		} {
			rw.owner.post(list, tc.form).want(t, "create with "+tc.name, http.StatusUnprocessableEntity, "",
				`id="`+tc.field+`-error"`, `aria-describedby="`+tc.field+`-error"`)
		}
		if got, err := rw.w.st.Technicians(ctx, store.Visibility{OrgID: rw.org.ID}, workshop.PageRequest{Limit: 10}); err != nil || len(got.Data) != 0 {
			t.Fatalf("refused creates left %d technicians (%v)", len(got.Data), err)
		}

		p := rw.owner.post(list, url.Values{"name": {"Jonas Weber"}, "skills": {"ev, brakes, ev"}, "wipLimit": {"3"}, "userId": {rw.workerUser.ID}})
		p.want(t, "create a technician", http.StatusSeeOther, "")
		id := strings.TrimPrefix(p.location, "/technicians/")
		tech, err := rw.w.st.Technician(ctx, store.Visibility{OrgID: rw.org.ID}, id)
		if err != nil {
			t.Fatalf("the created technician %q: %v", p.location, err)
		}
		if tech.Name != "Jonas Weber" || strings.Join(tech.Skills, ",") != "ev,brakes" || tech.WIPLimit != 3 || tech.UserID != rw.workerUser.ID {
			t.Errorf("created = %+v, want Jonas Weber, ev and brakes, 3, working as %s", tech, rw.workerUser.ID)
		}
		page := "/technicians/" + id
		rw.owner.get(list).want(t, "the list", http.StatusOK, "", `href="`+page+`"`, "Jonas Weber", "ev, brakes", "tech@example.com")
		rw.advisor.get(page).want(t, "an advisor reads the page", http.StatusOK, "", "<h1>Jonas Weber")
		rw.advisor.get(page).wantNot(t, "an advisor's page", "Edit technician", "/delete")
		rw.worker.get(page).want(t, "a technician opens the page", http.StatusForbidden, "")

		// Edit from the page's version, then again from the same (now stale) version.
		old := ver(tech.UpdatedAt)
		rw.owner.post(page+"/edit", url.Values{"name": {"Jonas W."}, "skills": {"ev"}, "wipLimit": {"2"}, "userId": {""}, "updatedAt": {old}}).
			want(t, "edit", http.StatusSeeOther, page)
		if tech, _ = rw.w.st.Technician(ctx, store.Visibility{OrgID: rw.org.ID}, id); tech.Name != "Jonas W." || tech.UserID != "" {
			t.Errorf("edited = %+v, want Jonas W. working as nobody", tech)
		}
		p = rw.owner.post(page+"/edit", url.Values{"name": {"Other tab"}, "skills": {""}, "wipLimit": {"2"}, "updatedAt": {old}})
		p.want(t, "a stale edit", http.StatusConflict, "", "Someone else changed this", `value="Jonas W."`, `value="`+ver(tech.UpdatedAt)+`"`)
		p.wantNot(t, "a stale edit", `value="Other tab"`)
		rw.owner.post(page+"/edit", url.Values{"name": {""}, "wipLimit": {"2"}, "updatedAt": {ver(tech.UpdatedAt)}}).
			want(t, "an edit without a name", http.StatusUnprocessableEntity, "", `id="name-error"`)

		// The API's PATCH moves the version on: the page's edit is stale.
		r := rw.api(t, "PATCH", "/v1/scheduler/technicians/"+id, fmt.Sprintf(`{"updatedAt":%q,"status":"on_break"}`, tech.UpdatedAt))
		if r.Status != http.StatusOK {
			t.Fatalf("PATCH technician: %d %s", r.Status, r.Body)
		}
		rw.owner.post(page+"/edit", url.Values{"name": {"After the API"}, "wipLimit": {"2"}, "updatedAt": {ver(tech.UpdatedAt)}}).
			want(t, "an edit after the API's PATCH", http.StatusConflict, "", "Someone else changed this")
		rw.owner.post(page+"/status", url.Values{"status": {"unavailable"}, "updatedAt": {ver(tech.UpdatedAt)}}).
			want(t, "a status after the API's PATCH", http.StatusConflict, "", `<option value="on_break" selected>`)
		tech, _ = rw.w.st.Technician(ctx, store.Visibility{OrgID: rw.org.ID}, id)
		rw.owner.post(page+"/status", url.Values{"status": {"unavailable"}, "updatedAt": {ver(tech.UpdatedAt)}}).
			want(t, "set the status", http.StatusSeeOther, page)
		rw.owner.post(page+"/status", url.Values{"status": {"asleep"}}).want(t, "an unknown status", http.StatusUnprocessableEntity, "", `id="status-error"`)
		if tech, _ = rw.w.st.Technician(ctx, store.Visibility{OrgID: rw.org.ID}, id); tech.Status != "unavailable" || tech.Name != "Jonas W." {
			t.Errorf("after the refused writes = %s %s, want Jonas W. unavailable", tech.Name, tech.Status)
		}

		// Delete: refused while a step is assigned, naming it; allowed once it is done.
		rw.assign(t, id, "")
		rw.owner.post(page+"/delete", url.Values{}).want(t, "delete an assigned technician", http.StatusConflict, "",
			inUse(rw.step.Label, rw.job.JobNumber, "is assigned to this technician"))
		rw.finishStep(t)
		rw.owner.post(page+"/delete", url.Values{}).want(t, "delete", http.StatusSeeOther, list)
		rw.owner.get(page).want(t, "the deleted technician's page", http.StatusNotFound, "")
		rw.owner.post(page+"/edit", url.Values{"name": {"Ghost"}, "wipLimit": {"2"}, "updatedAt": {ver(tech.UpdatedAt)}}).
			want(t, "an edit of the deleted technician", http.StatusNotFound, "")
		rw.owner.get(list).wantNot(t, "the list after the delete", "Jonas W.")
	})
}

// TestAppBays creates, edits and deletes a bay and puts it into and out
// of maintenance, which emits bay.status_changed as the API's PATCH does.
func TestAppBays(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		rw := newResourceWorld(t, db)
		list, v := "/locations/"+rw.loc.ID+"/bays", store.Visibility{OrgID: rw.org.ID}

		rw.worker.get(list).want(t, "a technician opens the bays", http.StatusForbidden, "")
		rw.advisor.get(list).want(t, "an advisor reads the bays", http.StatusOK, "", "<h1>Bays")
		rw.advisor.post(list, url.Values{"name": {"Nope"}}).want(t, "an advisor creates a bay", http.StatusForbidden, "")
		rw.owner.post(list, url.Values{"name": {strings.Repeat("x", 256)}}).want(t, "a name too long", http.StatusUnprocessableEntity, "",
			`id="name-error"`)

		p := rw.owner.post(list, url.Values{"name": {"Lift 1"}, "equipment": {"lift, tyre changer"}, "services": {"tyres"}})
		p.want(t, "create a bay", http.StatusSeeOther, "")
		id := strings.TrimPrefix(p.location, "/bays/")
		bay, err := rw.w.st.Bay(ctx, v, id)
		if err != nil || bay.Name != "Lift 1" || strings.Join(bay.Equipment, ",") != "lift,tyre changer" {
			t.Fatalf("created bay %q = %+v, %v", p.location, bay, err)
		}
		page := "/bays/" + id
		rw.owner.get(list).want(t, "the bays", http.StatusOK, "", `href="`+page+`"`, "lift, tyre changer", "Free")

		old := ver(bay.UpdatedAt)
		rw.owner.post(page+"/edit", url.Values{"name": {"Lift A"}, "equipment": {"lift"}, "services": {"tyres, brakes"}, "updatedAt": {old}}).
			want(t, "edit the bay", http.StatusSeeOther, page)
		rw.owner.post(page+"/edit", url.Values{"name": {"Lift B"}, "updatedAt": {old}}).
			want(t, "a stale bay edit", http.StatusConflict, "", "Someone else changed this", `value="Lift A"`)

		// Maintenance from the page: bay.status_changed, as the API's PATCH.
		bay, _ = rw.w.st.Bay(ctx, v, id)
		before := len(bayEvents(t, rw.w, id))
		rw.owner.post(page+"/status", url.Values{"status": {"maintenance"}, "updatedAt": {ver(bay.UpdatedAt)}}).
			want(t, "into maintenance", http.StatusSeeOther, page)
		rw.owner.get(page).want(t, "the bay in maintenance", http.StatusOK, "", "In maintenance", "Take out of maintenance")
		if evs := bayEvents(t, rw.w, id); len(evs) != before+1 || !strings.Contains(evs[len(evs)-1], `"status":"maintenance"`) {
			t.Errorf("bay events after maintenance = %v, want one more bay.status_changed with status maintenance", evs)
		}
		bay, _ = rw.w.st.Bay(ctx, v, id)
		r := rw.api(t, "PATCH", "/v1/scheduler/bays/"+id, fmt.Sprintf(`{"updatedAt":%q,"status":"available"}`, bay.UpdatedAt))
		if r.Status != http.StatusOK {
			t.Fatalf("PATCH bay: %d %s", r.Status, r.Body)
		}
		rw.owner.post(page+"/status", url.Values{"status": {"maintenance"}, "updatedAt": {ver(bay.UpdatedAt)}}).
			want(t, "maintenance after the API's PATCH", http.StatusConflict, "", "Someone else changed this", "Put into maintenance")
		rw.owner.post(page+"/edit", url.Values{"name": {"Lift C"}, "updatedAt": {ver(bay.UpdatedAt)}}).
			want(t, "an edit after the API's PATCH", http.StatusConflict, "")
		if got := len(bayEvents(t, rw.w, id)); got != before+2 {
			t.Errorf("bay events = %d, want %d (the app's and the API's changes only)", got, before+2)
		}

		rw.assign(t, "", id)
		rw.owner.post(page+"/delete", url.Values{}).want(t, "delete a bay in use", http.StatusConflict, "",
			inUse(rw.step.Label, rw.job.JobNumber, "is in this bay"))
		rw.finishStep(t)
		rw.owner.post(page+"/delete", url.Values{}).want(t, "delete the bay", http.StatusSeeOther, list)
		if _, err := rw.w.st.Bay(ctx, v, id); workshop.ErrorCode(err) != workshop.CodeNotFound {
			t.Errorf("the deleted bay reads %v, want not found", err)
		}
	})
}

// bayEvents are the data of a bay's bay.status_changed events, oldest first.
func bayEvents(t *testing.T, w *testWorld, bayID string) []string {
	t.Helper()
	evs, err := w.st.EventsAfter(context.Background(), 0, 10000)
	if err != nil {
		t.Fatalf("EventsAfter: %v", err)
	}
	var out []string
	for _, ev := range evs {
		if ev.Name == string(workshop.EventBayStatusChanged) && strings.Contains(string(ev.Data), bayID) {
			out = append(out, string(ev.Data))
		}
	}
	return out
}

// TestAppCatalog: an advisor makes, edits, deactivates and deletes a
// catalog item; the API's put between makes the page's edit stale, and
// an item an open step was made from is not deleted.
func TestAppCatalog(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		rw := newResourceWorld(t, db)
		list, v := "/locations/"+rw.loc.ID+"/catalog", store.Visibility{OrgID: rw.org.ID}
		page := list + "/BRK-1"

		rw.worker.get(list).want(t, "a technician opens the catalog", http.StatusForbidden, "")
		rw.advisor.post(list, url.Values{"serviceCode": {"bad code"}, "name": {""}, "estimatedDuration": {"0"}}).
			want(t, "an invalid item", http.StatusUnprocessableEntity, "", `id="serviceCode-error"`, `id="name-error"`, `id="estimatedDuration-error"`)
		rw.advisor.post(list, url.Values{"serviceCode": {"BRK-1"}, "name": {"Brakes"}, "estimatedDuration": {"90"}, "requiredSkills": {"brakes"},
			"isActive": {"on"}}).want(t, "create an item", http.StatusSeeOther, page)
		rw.advisor.post(list, url.Values{"serviceCode": {"BRK-1"}, "name": {"Again"}, "estimatedDuration": {"90"}}).
			want(t, "a code taken", http.StatusUnprocessableEntity, "", `id="serviceCode-error"`)
		rw.advisor.get(list).want(t, "the catalog", http.StatusOK, "", `href="`+page+`"`, "Brakes", `<td class="num">1:30</td>`, "Active")

		it, err := rw.w.st.CatalogItem(ctx, v, rw.loc.ID, "BRK-1")
		if err != nil || it.Name != "Brakes" || !it.IsActive {
			t.Fatalf("created item = %+v, %v", it, err)
		}
		old := ver(it.UpdatedAt)
		rw.advisor.post(page+"/edit", url.Values{"name": {"Brake pads"}, "estimatedDuration": {"75"}, "requiredSkills": {"brakes"}, "updatedAt": {old}}).
			want(t, "edit and deactivate", http.StatusSeeOther, page)
		if it, _ = rw.w.st.CatalogItem(ctx, v, rw.loc.ID, "BRK-1"); it.Name != "Brake pads" || it.EstimatedDuration != 75 || it.IsActive {
			t.Errorf("edited = %+v, want Brake pads, 75 min, inactive", it)
		}
		rw.advisor.post(page+"/edit", url.Values{"name": {"Other tab"}, "estimatedDuration": {"10"}, "updatedAt": {old}}).
			want(t, "a stale catalog edit", http.StatusConflict, "", "Someone else changed this", `value="Brake pads"`)
		rw.advisor.post(page+"/edit", url.Values{"name": {"Brake pads"}, "estimatedDuration": {"10081"}, "updatedAt": {ver(it.UpdatedAt)}}).
			want(t, "an estimate over a week", http.StatusUnprocessableEntity, "", `id="estimatedDuration-error"`)

		r := rw.api(t, "PUT", "/v1/scheduler/catalog/BRK-1", fmt.Sprintf(`{"locationId":%q,"name":"Brakes (DMS)","estimatedDuration":80}`, rw.loc.ID))
		if r.Status != http.StatusOK {
			t.Fatalf("PUT catalog item: %d %s", r.Status, r.Body)
		}
		rw.advisor.post(page+"/edit", url.Values{"name": {"Mine"}, "estimatedDuration": {"75"}, "isActive": {"on"}, "updatedAt": {ver(it.UpdatedAt)}}).
			want(t, "an edit after the API's put", http.StatusConflict, "", `value="Brakes (DMS)"`)

		// A step made from the item holds it until its job is delivered.
		code := "BRK-1"
		st := workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: rw.job.ID, ServiceCode: &code, SchedulingMode: "sequential",
			TechIDs: []string{}, Status: workshop.StepPending, CreatedAt: workshop.MicrosOf(time.Now()), UpdatedAt: workshop.MicrosOf(time.Now())}
		if st, err = rw.w.st.CreateStep(ctx, v, st); err != nil {
			t.Fatalf("a step from the catalog: %v", err)
		}
		rw.advisor.post(page+"/delete", url.Values{}).want(t, "delete an item in use", http.StatusConflict, "",
			inUse(st.Label, rw.job.JobNumber, "is this service"))
		if _, err := rw.w.st.DeliverJob(ctx, v, rw.job.ID, workshop.MicrosOf(time.Now())); err != nil {
			t.Fatalf("deliver: %v", err)
		}
		rw.advisor.post(page+"/delete", url.Values{}).want(t, "delete the item", http.StatusSeeOther, list)
		rw.advisor.get(page).want(t, "the deleted item", http.StatusNotFound, "")
	})
}
