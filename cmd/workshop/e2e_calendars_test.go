package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestCalendarsAPI: absences and bay maintenance windows through the API,
// every refusal the contract names, and the plan version moving with them.
func TestCalendarsAPI(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		org := w.org("Calendar Motors", workshop.PlanPro, 2)
		other := w.org("Other Motors", workshop.PlanPro, 1)
		ctx := context.Background()
		loc, loc2 := org.Locations[0], org.Locations[1]
		tech, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Part Timer", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		tech2, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc2.ID, Name: "Elsewhere", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		foreign, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: other.Locations[0].ID, Name: "Foreign", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		bay, err := w.op.CreateBay(ctx, loc.ID, "Lift 1", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, db.URL)
		key, locKey := org.Key.Key, org.locationKey(w, 0).Key
		call := func(key, method, path string, body any) *apitest.Response {
			t.Helper()
			return apitest.Call(t, srv.URL, apitest.Request{Method: method, Path: path, Key: key, Body: body})
		}
		absence := func(techID, start, end, reason string) map[string]any {
			return map[string]any{"techId": techID, "start": start, "end": end, "reason": reason}
		}
		const mon, fri = "2026-12-14T00:00:00+01:00", "2026-12-19T00:00:00+01:00"

		refusals := []struct {
			name, key, path string
			body            any
			status          int
			code, field     string
		}{
			{"end before start", key, "/v1/scheduler/absences", absence(tech.ID, fri, mon, "vacation"), 422, "validation_failed", "end"},
			{"end equal to start", key, "/v1/scheduler/absences", absence(tech.ID, mon, mon, "vacation"), 422, "validation_failed", "end"},
			{"more than 366 days", key, "/v1/scheduler/absences", absence(tech.ID, "2026-01-01T00:00:00Z", "2027-01-03T00:00:00Z", "vacation"), 422, "validation_failed", "end"},
			{"bad reason", key, "/v1/scheduler/absences", absence(tech.ID, mon, fri, "holiday"), 422, "validation_failed", "reason"},
			{"unknown technician", key, "/v1/scheduler/absences", absence("tec_nobody", mon, fri, "vacation"), 422, "validation_failed", "techId"},
			{"another org's technician", key, "/v1/scheduler/absences", absence(foreign.ID, mon, fri, "vacation"), 422, "validation_failed", "techId"},
			{"another location's technician", locKey, "/v1/scheduler/absences", absence(tech2.ID, mon, fri, "vacation"), 422, "validation_failed", "techId"},
			{"start without offset", key, "/v1/scheduler/absences", absence(tech.ID, "2026-12-14T00:00:00", fri, "vacation"), 422, "validation_failed", "start"},
			{"window end before start", key, "/v1/scheduler/bays/" + bay.ID + "/maintenance-windows", map[string]any{"start": fri, "end": mon}, 422, "validation_failed", "end"},
			{"window of an unknown bay", key, "/v1/scheduler/bays/bay_nobody/maintenance-windows", map[string]any{"start": mon, "end": fri}, 404, "not_found", ""},
		}
		for _, r := range refusals {
			t.Run(r.name, func(t *testing.T) {
				wantProblem(t, call(r.key, http.MethodPost, r.path, r.body), r.status, r.code, r.field)
			})
		}

		// Scopes: a technician's role reads attendance but cannot write it;
		// an advisor cannot write bays.
		techUser, err := w.op.CreateUser(ctx, org.ID, "tech@example.com", workshop.RoleTechnician, true)
		if err != nil {
			t.Fatal(err)
		}
		advisor, err := w.op.CreateUser(ctx, org.ID, "advisor@example.com", workshop.RoleAdvisor, true)
		if err != nil {
			t.Fatal(err)
		}
		techKey, advisorKey := w.key(operator.KeyRequest{UserID: techUser.ID}).Key, w.key(operator.KeyRequest{UserID: advisor.ID}).Key
		wantProblem(t, call(techKey, http.MethodPost, "/v1/scheduler/absences", absence(tech.ID, mon, fri, "vacation")), 403, "insufficient_scope", "")
		wantProblem(t, call(advisorKey, http.MethodPost, "/v1/scheduler/bays/"+bay.ID+"/maintenance-windows",
			map[string]any{"start": mon, "end": fri}), 403, "insufficient_scope", "")
		wantProblem(t, call(techKey, http.MethodGet, "/v1/scheduler/maintenance-windows", nil), 403, "insufficient_scope", "")

		version := func() int64 {
			t.Helper()
			v, err := w.st.PlanVersion(ctx, loc.ID)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		before := version()
		made := call(key, http.MethodPost, "/v1/scheduler/absences", map[string]any{"techId": tech.ID, "start": mon, "end": fri,
			"reason": "vacation", "note": "Skiing"})
		if made.Status != http.StatusCreated {
			t.Fatalf("create absence: %d %s", made.Status, made.Body)
		}
		var a struct{ ID, TechID, LocationID, Start, End, Reason, Note string }
		made.Decode(t, &a)
		if !strings.HasPrefix(a.ID, "abs_") || a.LocationID != loc.ID || a.Start != mon || a.End != fri || a.Note != "Skiing" {
			t.Errorf("absence: got %s, want abs_ id, location %s, start and end as sent", made.Body, loc.ID)
		}
		if after := version(); after <= before {
			t.Errorf("plan version after an absence: got %d, want more than %d", after, before)
		}
		// Overlapping absences are allowed, and a location's key makes them too.
		if r := call(locKey, http.MethodPost, "/v1/scheduler/absences", absence(tech.ID, mon, fri, "training")); r.Status != http.StatusCreated {
			t.Errorf("overlapping absence: got %d %s, want 201", r.Status, r.Body)
		}
		lists := []struct {
			query string
			want  int
		}{
			{"", 2}, {"?techId=" + tech.ID, 2}, {"?techId=" + tech2.ID, 0},
			{"?from=2026-12-18&to=2026-12-18", 2}, {"?from=2026-12-19", 0}, {"?to=2026-12-13", 0}, {"?to=2026-12-14", 2},
			{"?locationId=" + loc2.ID, 0},
		}
		for _, l := range lists {
			var page struct{ Data []json.RawMessage }
			call(key, http.MethodGet, "/v1/scheduler/absences"+l.query, nil).Decode(t, &page)
			if len(page.Data) != l.want {
				t.Errorf("absences%s: got %d, want %d", l.query, len(page.Data), l.want)
			}
		}
		wantProblem(t, call(org.locationKey(w, 1).Key, http.MethodDelete, "/v1/scheduler/absences/"+a.ID, nil), 404, "not_found", "")
		before = version()
		if r := call(key, http.MethodDelete, "/v1/scheduler/absences/"+a.ID, nil); r.Status != http.StatusNoContent {
			t.Errorf("delete absence: got %d %s, want 204", r.Status, r.Body)
		}
		if after := version(); after <= before {
			t.Errorf("plan version after deleting an absence: got %d, want more than %d", after, before)
		}
		wantProblem(t, call(key, http.MethodDelete, "/v1/scheduler/absences/"+a.ID, nil), 404, "not_found", "")

		// A maintenance window keeps the bay's status.
		win := call(key, http.MethodPost, "/v1/scheduler/bays/"+bay.ID+"/maintenance-windows",
			map[string]any{"start": "2026-12-17T08:00:00+01:00", "end": "2026-12-17T12:00:00+01:00", "reason": "Lift inspection"})
		if win.Status != http.StatusCreated {
			t.Fatalf("create window: %d %s", win.Status, win.Body)
		}
		var mw struct{ ID, BayID, Reason string }
		win.Decode(t, &mw)
		var b struct{ Status string }
		call(key, http.MethodGet, "/v1/scheduler/bays/"+bay.ID, nil).Decode(t, &b)
		if !strings.HasPrefix(mw.ID, "bmw_") || mw.BayID != bay.ID || b.Status != "available" {
			t.Errorf("window %s, bay status %q: want a bmw_ id of the bay and the bay still available", win.Body, b.Status)
		}
		for _, path := range []string{"/v1/scheduler/bays/" + bay.ID + "/maintenance-windows", "/v1/scheduler/maintenance-windows?bayId=" + bay.ID,
			"/v1/scheduler/maintenance-windows?from=2026-12-17&to=2026-12-17"} {
			var page struct{ Data []json.RawMessage }
			call(key, http.MethodGet, path, nil).Decode(t, &page)
			if len(page.Data) != 1 {
				t.Errorf("%s: got %d windows, want 1", path, len(page.Data))
			}
		}
		wantProblem(t, call(key, http.MethodDelete, "/v1/scheduler/bays/bay_other/maintenance-windows/"+mw.ID, nil), 404, "not_found", "")
		if r := call(key, http.MethodDelete, "/v1/scheduler/bays/"+bay.ID+"/maintenance-windows/"+mw.ID, nil); r.Status != http.StatusNoContent {
			t.Errorf("delete window: got %d %s, want 204", r.Status, r.Body)
		}

		// Working hours: read-only in the API, null by default.
		var got struct{ WorkingHours json.RawMessage }
		var hours []workshop.WeeklyHours
		call(key, http.MethodGet, "/v1/scheduler/technicians/"+tech.ID, nil).Decode(t, &got)
		if string(got.WorkingHours) != "null" {
			t.Errorf("workingHours of a new technician: got %s, want null", got.WorkingHours)
		}
		if _, err := w.op.SetTechnicianHours(ctx, tech.ID, `[{"day":"tue","start":"08:00","end":"14:00"},{"day":"mon","start":"08:00","end":"14:00"}]`); err != nil {
			t.Fatal(err)
		}
		call(key, http.MethodGet, "/v1/scheduler/technicians/"+tech.ID, nil).Decode(t, &got)
		_ = json.Unmarshal(got.WorkingHours, &hours)
		if want := "mon-tue 08:00-14:00"; workshop.FormatWorkingHours(hours) != want {
			t.Errorf("workingHours: got %s, want %s", got.WorkingHours, want)
		}
		data, err := w.st.PlanData(ctx, loc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(data.Absences) != 1 || len(data.Techs) != 1 || len(data.Techs[0].WorkingHours) != 2 {
			t.Errorf("plan data: %d absences, technicians %+v; want 1 absence and the hours", len(data.Absences), data.Techs)
		}
	})
}

// TestAdminSetHours: `admin technician set-hours` prints the technician as
// the API shows it, null returns to the location's time, and malformed
// hours exit 1 changing nothing.
func TestAdminSetHours(t *testing.T) {
	t.Parallel()
	url := storetest.SQLiteURL(t)
	env := map[string]string{"WORKSHOP_DATABASE_URL": url}
	w := newWorld(t, url)
	org := w.org("Hours Motors", workshop.PlanPro, 1)
	tech, err := w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: org.Locations[0].ID, Name: "Mornings", WIPLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := runCmd(t, env, "admin", "technician", "set-hours", tech.ID, "--working-hours", `[{"day":"mon","start":"08:00","end":"14:00"}]`).object(t)
	if h, _ := json.Marshal(out["workingHours"]); string(h) != `[{"day":"mon","end":"14:00","start":"08:00"}]` || out["id"] != tech.ID {
		t.Errorf("set-hours: got %v, want the technician with its hours", out)
	}
	for _, bad := range []string{`[{"day":"mon","start":"14:00","end":"08:00"}]`, `[{"day":"monday","start":"08:00","end":"14:00"}]`,
		`[{"day":"mon","start":"8","end":"14:00"}]`, `{"day":"mon"}`, `[{"day":"mon","start":"08:00","end":"14:00","x":1}]`, `nonsense`,
		`[{"day":"mon","start":"08:00","end":"25:00"}]`} {
		if r := runCmd(t, env, "admin", "technician", "set-hours", tech.ID, "--working-hours", bad); r.code != 1 || r.stdout != "" {
			t.Errorf("set-hours %s: exit %d, stdout %q; want 1 and nothing printed", bad, r.code, r.stdout)
		}
	}
	if r := runCmd(t, env, "admin", "technician", "set-hours", "tec_nobody", "--working-hours", "null"); r.code != 1 {
		t.Errorf("set-hours of an unknown technician: exit %d, want 1", r.code)
	}
	if out := runCmd(t, env, "admin", "technician", "set-hours", tech.ID, "--working-hours", "null").object(t); out["workingHours"] != nil {
		t.Errorf("set-hours null: got %v, want workingHours null", out["workingHours"])
	}
}

// TestAppBookingDropOff: the new-job form offers the days to book on (a
// day chosen fills the drop-off and the promise), takes the customer
// (a bad phone is refused beside its field), the job page shows them, and
// the board says "Expected" beside a booking whose drop-off has passed.
func TestAppBookingDropOff(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		org := w.org("Booking Motors", "pro", 1)
		loc := org.Locations[0]
		appUser(t, w, org.ID, "advisor@example.com", workshop.RoleAdvisor, testPassword)
		if _, err := w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: loc.ID, Name: "Jonas Weber", WIPLimit: 2}); err != nil {
			t.Fatal(err)
		}
		w.catalogItem(org.ID, loc.ID, "OIL", "Oil change", 45)
		srv := startServer(t, db.URL)
		b := newBrowser(t, srv.URL)
		b.login("advisor@example.com", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		newJob := "/locations/" + loc.ID + "/jobs/new"
		b.get(newJob+"/quote?serviceCodes=OIL").want(t, "the days to offer", http.StatusOK, "", `name="useDay"`, ": ready ")
		b.post(newJob, url.Values{"kind": {"walk_in"}, "priority": {"normal"}, "serviceCodes": {"OIL"}, "useDay": {"2030-01-07T08:00|2030-01-07T09:00"}}).
			want(t, "a day chosen", http.StatusOK, "", `value="2030-01-07T08:00"`, `value="2030-01-07T09:00"`, `value="booking" checked`)
		form := url.Values{"kind": {"booking"}, "priority": {"normal"}, "serviceCodes": {"OIL"}, "vehiclePlate": {"B-XY 1"},
			"expectedArrival": {"2030-01-07T08:00"}, "customerName": {"Hanna Schulz"}, "customerPhone": {"call me"},
			"customerEmail": {"hanna@example.com"}}
		b.post(newJob, form).want(t, "a bad phone", http.StatusUnprocessableEntity, "", `id="customerPhone-error"`, `value="Hanna Schulz"`)
		form.Set("customerPhone", "+49 30 1234-56")
		made := b.post(newJob, form)
		made.want(t, "the booking", http.StatusSeeOther, "")
		page := b.get(made.location)
		page.want(t, "the job page", http.StatusOK, "", "Hanna Schulz · ", "1234-56 · hanna@example.com", "Drop-off")

		past := time.Now().Add(-time.Hour).Truncate(time.Minute)
		now := workshop.MicrosOf(time.Now())
		if _, err := w.st.CreateJob(ctx, workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: org.ID, LocationID: loc.ID,
			Priority: "normal", Source: "phone", CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{}, ExpectedArrival: &past}, false); err != nil {
			t.Fatal(err)
		}
		zone, _ := time.LoadLocation(loc.Timezone)
		b.get("/locations/"+loc.ID+"/board").want(t, "the board", http.StatusOK, "", "Expected "+past.In(zone).Format("15:04"))
	})
}
