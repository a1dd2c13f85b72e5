package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	settings := func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/settings" }
	readers := []workshop.Role{workshop.RoleOwner, workshop.RoleAdmin, workshop.RoleAdvisor}
	appActions = append(appActions,
		appAction{name: "settings page", method: "GET", path: settings, allowed: readers},
		appAction{name: "save settings", method: "POST", path: settings,
			form: func(*matrixWorld) url.Values { return url.Values{"bayBufferMinutes": {"x"}} }, allowed: adminsOnly},
		appAction{name: "add a cancel reason", method: "POST", path: func(m *matrixWorld) string { return settings(m) + "/tags" },
			form: func(*matrixWorld) url.Values { return url.Values{"tag": {"Not A Tag"}} }, allowed: adminsOnly},
		appAction{name: "retire a cancel reason", method: "POST", path: func(m *matrixWorld) string { return settings(m) + "/tags/missing/retire" },
			form: func(*matrixWorld) url.Values { return url.Values{} }, allowed: adminsOnly},
	)
}

// settingsForm is a whole settings form: Monday to Friday 08:00-17:00
// with a lunch break, the weekend closed, changed by edit.
func settingsFormOf(version workshop.Micros, edit func(url.Values)) url.Values {
	f := url.Values{"updatedAt": {ver(version)}, "bayBufferMinutes": {"15"}, "promiseConfidence": {"90"}}
	for _, day := range []string{"mon", "tue", "wed", "thu", "fri"} {
		f.Set("open-"+day, "08:00")
		f.Set("close-"+day, "17:00")
		f.Set("breaks-"+day, "12:00-12:30")
	}
	if edit != nil {
		edit(f)
	}
	return f
}

// Workshop settings in the application: an owner sets the week's hours,
// breaks and bay buffer (the API reads them), wrong input is refused
// beside its field with nothing saved, a stale form shows the current
// values; cancel reasons are added, relabelled, retired (the API refuses
// them, the job cancelled with one keeps it) and reinstated. An advisor
// sees the settings and changes nothing.
func TestAppWorkshopSettings(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		o := w.org("Settings Motors", "pro", 1)
		loc := o.Locations[0]
		appUser(t, w, o.ID, "boss@settings.example", workshop.RoleOwner, testPassword)
		appUser(t, w, o.ID, "desk@settings.example", workshop.RoleAdvisor, testPassword)
		srv := startServer(t, db.URL)
		path := "/locations/" + loc.ID + "/settings"
		current := func() workshop.Settings {
			t.Helper()
			st, err := w.st.Settings(ctx, loc.ID)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}

		adv := newBrowser(t, srv.URL)
		adv.login("desk@settings.example", testPassword, "").want(t, "advisor signs in", http.StatusSeeOther, "/")
		adv.get(path).want(t, "advisor reads the settings", http.StatusOK, "", "Only owners and admins change the settings", `id="open-mon"`)
		adv.post(path, settingsFormOf(current().UpdatedAt, nil)).want(t, "advisor saves", http.StatusForbidden, "")

		b := newBrowser(t, srv.URL)
		b.login("boss@settings.example", testPassword, "").want(t, "owner signs in", http.StatusSeeOther, "/")
		b.get(path).want(t, "the settings", http.StatusOK, "", `value="08:00"`, `value="17:30"`, `value="12:00-12:30"`, "Save the settings")

		before := current()
		for _, tt := range []struct {
			name, field, message string
			edit                 func(url.Values)
		}{
			{"a break outside the hours", "breaks-mon", "outside the opening hours", func(f url.Values) { f.Set("breaks-mon", "07:00-07:30") }},
			{"breaks overlapping", "breaks-tue", "the breaks overlap", func(f url.Values) { f.Set("breaks-tue", "12:00-12:30, 12:15-12:45") }},
			{"a break badly written", "breaks-wed", "HH:MM-HH:MM", func(f url.Values) { f.Set("breaks-wed", "noon") }},
			{"only an opening time", "hours-thu", "or neither", func(f url.Values) { f.Del("close-thu"); f.Set("breaks-thu", "") }},
			{"closing before opening", "hours-fri", "opening first", func(f url.Values) { f.Set("close-fri", "07:00"); f.Set("breaks-fri", "") }},
			{"a break on a closed day", "breaks-sun", "is closed", func(f url.Values) { f.Set("breaks-sun", "12:00-12:30") }},
			{"a bay buffer too long", "bayBufferMinutes", "0 to 240", func(f url.Values) { f.Set("bayBufferMinutes", "600") }},
		} {
			b.post(path, settingsFormOf(before.UpdatedAt, tt.edit)).want(t, tt.name, http.StatusUnprocessableEntity, "",
				`id="`+tt.field+`-error"`, tt.message)
		}
		if got := current(); got.UpdatedAt != before.UpdatedAt {
			t.Errorf("a refused form changed the settings: %+v", got)
		}

		b.post(path, settingsFormOf(before.UpdatedAt, func(f url.Values) { f.Set("open-sat", "09:00"); f.Set("close-sat", "12:00") })).
			want(t, "save", http.StatusSeeOther, path+"?saved=1")
		b.get(path+"?saved=1").want(t, "saved", http.StatusOK, "", "The settings are saved", `value="15"`)
		res := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/scheduler/workshop", Key: o.locationKey(w, 0).Key})
		wantAnswer(t, res, "the API reads them", http.StatusOK, `"bayBufferMinutes":15`, `{"close":"12:00","day":"sat","open":"09:00"}`)
		b.post(path, settingsFormOf(before.UpdatedAt, func(f url.Values) { f.Set("bayBufferMinutes", "30") })).
			want(t, "save from a stale form", http.StatusConflict, "", "Someone else changed this", `value="15"`)
		if got := current(); got.BayBufferMinutes != 15 {
			t.Errorf("the stale form saved: buffer %d, want 15", got.BayBufferMinutes)
		}

		tags := path + "/tags"
		b.post(tags, url.Values{"tag": {"No Show"}}).want(t, "a bad tag", http.StatusUnprocessableEntity, "", `id="tag-error"`, "is not a tag")
		b.post(tags, url.Values{"tag": {"no_show"}}).want(t, "add a tag", http.StatusSeeOther, "")
		b.post(tags, url.Values{"tag": {"no_show"}, "label": {"Customer did not come"}}).want(t, "relabel", http.StatusSeeOther, "")
		job, other := w.job(o.ID, loc.ID), w.job(o.ID, loc.ID)
		if _, err := w.st.CancelJob(ctx, store.Visibility{OrgID: o.ID}, job.ID, []string{"no_show"}, workshop.MicrosOf(w.st.Now())); err != nil {
			t.Fatal(err)
		}
		b.post(tags+"/no_show/retire", url.Values{}).want(t, "retire", http.StatusSeeOther, "")
		b.post(tags+"/no_show/retire", url.Values{}).want(t, "retire twice", http.StatusNotFound, "")
		b.get(path).want(t, "retired shown", http.StatusOK, "", "Customer did not come", "Retired", "Reinstate")
		b.get("/jobs/"+job.ID).want(t, "the cancelled job keeps the retired reason's label", http.StatusOK, "", "<dd>Customer did not come</dd>")
		b.get("/jobs/"+other.ID).wantNot(t, "the cancel form offers no retired reason", `value="no_show"`)
		res = apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/scheduler/cancel-reason-tags?locationId=" + loc.ID, Key: o.Key.Key})
		wantAnswer(t, res, "the API lists the active tags only", http.StatusOK, `"customer_declined"`)
		if strings.Contains(string(res.Body), "no_show") {
			t.Errorf("the API lists the retired tag: %s", res.Body)
		}
		wantProblem(t, apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs/" + other.ID + "/cancel",
			Key: o.Key.Key, Body: map[string]any{"reasonTags": []string{"no_show"}}}), http.StatusUnprocessableEntity, "validation_failed", "reasonTags")
		if got := deskJob(t, w, o.ID, job.ID); len(got.CancelReasons) != 1 || got.CancelReasons[0] != "no_show" {
			t.Errorf("the job cancelled with the retired tag has %v", got.CancelReasons)
		}
		b.post(tags, url.Values{"tag": {"no_show"}, "label": {"Customer did not come"}}).want(t, "reinstate", http.StatusSeeOther, "")
		res = apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/scheduler/cancel-reason-tags?locationId=" + loc.ID, Key: o.Key.Key})
		wantAnswer(t, res, "reinstated", http.StatusOK, `"no_show"`)
	})
}

// wantAnswer fails the test unless the API answered with status and a
// body holding each text.
func wantAnswer(t *testing.T, r *apitest.Response, step string, status int, texts ...string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d: %s", step, r.Status, status, r.Body)
	}
	for _, text := range texts {
		if !strings.Contains(string(r.Body), text) {
			t.Errorf("%s: the body lacks %s: %s", step, text, r.Body)
		}
	}
}
