package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/webhooks/webhookstest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A new workshop, as issue 20 checks it, with no `workshop admin` command
// after the setup link: the organisation, a location, technicians, a bay,
// a catalog item and opening hours made in the application; an advisor
// and a technician invited; a day worked (a job booked in from the
// catalog, assigned, started, completed, delivered, the technician
// clocked in and out); the day closed; an API key and a webhook made in
// the developer settings; a job created through the API reaching the
// webhook's receiver signed; the key revoked and refused.
func TestAppNewWorkshopJourney(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := context.Background()
		w := newWorld(t, db.URL)
		srv := startServer(t, db.URL)
		token, needed, err := w.op.SetupToken(ctx)
		if err != nil || !needed {
			t.Fatalf("setup token: %v (needed %v)", err, needed)
		}

		owner := newBrowser(t, srv.URL)
		owner.post("/setup/"+token, url.Values{"orgName": {"Garage Nord"}, "locationName": {"Hamburg"}, "timezone": {"Europe/Berlin"},
			"currency": {"EUR"}, "email": {"boss@nord.example"}, "password": {testPassword}}).want(t, "set up", http.StatusSeeOther, "")
		owner.get("/organisation").want(t, "the organisation", http.StatusOK, "", "Garage Nord", "Hamburg", "boss@nord.example")
		owner.post("/organisation/locations/new", url.Values{"name": {"Altona"}, "timezone": {"Europe/Berlin"}, "currency": {"EUR"}}).
			want(t, "a second location", http.StatusSeeOther, "")
		orgID, loc := journeyLocation(t, w, "Hamburg")
		base := "/locations/" + loc.ID

		// the team: invited, each choosing a password
		invite := func(email, role string) *browser {
			t.Helper()
			link := orgInviteLink(t, owner.post("/organisation/users", url.Values{"email": {email}, "role": {role}}))
			u, err := url.Parse(link)
			if err != nil {
				t.Fatal(err)
			}
			b := newBrowser(t, srv.URL)
			b.post(u.Path, url.Values{"password": {testPassword}, "confirm": {testPassword}}).want(t, "accept the invite of "+email, http.StatusSeeOther, "/")
			return b
		}
		advisor := invite("desk@nord.example", "advisor")
		techUser := invite("jonas@nord.example", "technician")
		jonas := memberID(t, w, "jonas@nord.example")

		// the workshop: a technician who signs in as Jonas, a bay, a catalog item, the week
		owner.post(base+"/technicians", url.Values{"name": {"Jonas Weber"}, "skills": {"brakes"}, "wipLimit": {"2"}, "userId": {jonas}}).
			want(t, "a technician", http.StatusSeeOther, "")
		owner.post(base+"/bays", url.Values{"name": {"Lift 1"}, "equipment": {"lift"}, "services": {""}}).want(t, "a bay", http.StatusSeeOther, "")
		advisor.post(base+"/catalog", url.Values{"serviceCode": {"BRAKE-F"}, "name": {"Front brakes"}, "estimatedDuration": {"90"},
			"requiredSkills": {"brakes"}, "isActive": {"on"}}).want(t, "a catalog item", http.StatusSeeOther, "")
		st, err := w.st.Settings(ctx, loc.ID)
		if err != nil {
			t.Fatal(err)
		}
		hours := settingsFormOf(st.UpdatedAt, func(f url.Values) {
			for _, day := range []string{"sat", "sun"} {
				f.Set("open-"+day, "00:00")
				f.Set("close-"+day, "23:59")
			}
			for _, day := range []string{"mon", "tue", "wed", "thu", "fri"} {
				f.Set("open-"+day, "00:00")
				f.Set("close-"+day, "23:59")
			}
		})
		owner.post(base+"/settings", hours).want(t, "opening hours", http.StatusSeeOther, "")
		tech, bay := journeyResources(t, w, orgID, loc.ID)

		// the day: Jonas clocks in; a walk-in booked from the catalog, worked and delivered
		techUser.post(base+"/clock/in", url.Values{"techId": {tech.ID}}).want(t, "clock in", http.StatusSeeOther, "")
		p := advisor.post(base+"/jobs/new", url.Values{"kind": {"walk_in"}, "vehiclePlate": {"HH-AB 123"}, "priority": {"normal"},
			"serviceCodes": {"BRAKE-F"}})
		p.want(t, "a walk-in", http.StatusSeeOther, "")
		jobID := strings.TrimPrefix(p.location, "/jobs/")
		job := deskJob(t, w, orgID, jobID)
		step := job.Steps[0]
		advisor.post("/jobs/"+jobID+"/steps/"+step.ID+"/assign", url.Values{"techIds": {tech.ID}, "bayId": {bay.ID}, "updatedAt": {ver(step.UpdatedAt)}}).
			want(t, "assign", http.StatusSeeOther, "")
		// Back on their list, which confirms the tap at the step.
		for _, a := range []struct{ action, done string }{{"start", "started"}, {"complete", "completed"}} {
			step = deskJob(t, w, orgID, jobID).Steps[0]
			techUser.post("/jobs/"+jobID+"/steps/"+step.ID+"/"+a.action, url.Values{"updatedAt": {ver(step.UpdatedAt)}, "next": {"/my/work"}}).
				want(t, "the technician does "+a.action, http.StatusSeeOther, "/my/work?done="+a.done+"&step="+step.ID)
		}
		job = deskJob(t, w, orgID, jobID)
		advisor.post("/jobs/"+jobID+"/deliver", url.Values{"updatedAt": {ver(job.UpdatedAt)}}).want(t, "deliver", http.StatusSeeOther, "")
		techUser.post(base+"/clock/out", url.Values{"techId": {tech.ID}}).want(t, "clock out", http.StatusSeeOther, "")

		// the close
		advisor.post(base+"/day-close/start", url.Values{}).want(t, "start the close", http.StatusSeeOther, "")
		fin := advisor.post(base+"/day-close/finish", url.Values{})
		fin.want(t, "finish the close", http.StatusSeeOther, "")
		advisor.get(fin.location).want(t, "the day's summary", http.StatusOK, "", "<dt>Jobs delivered</dt><dd>1</dd>",
			"<dt>Steps completed</dt><dd>1</dd>")

		// the integration: a key and a webhook from the developer settings
		rcv, err := webhookstest.Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rcv.Close)
		p = owner.post("/developer/keys", url.Values{"name": {"DMS"}, "scopes": {"jobs:read", "jobs:write"}})
		p.want(t, "an API key", http.StatusOK, "")
		key := shownSecret(t, p, apiKeyRe)
		p = owner.post("/developer/webhooks", url.Values{"url": {rcv.URL + "/dms"}, "events": {"job.created"}})
		p.want(t, "a webhook", http.StatusOK, "")
		secret := shownSecret(t, p, signingSecretRe)
		res := apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: key,
			Body: map[string]any{"locationId": loc.ID, "vehiclePlate": "HH-CD 456"}})
		wantAnswer(t, res, "a job through the API", http.StatusCreated, `"vehiclePlate":"HH-CD 456"`)
		waitCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		hits, err := rcv.Wait(waitCtx, "/dms", func(hs []*webhookstest.Hit) bool { return countEvent(hs, "job.created") >= 1 })
		if err != nil {
			t.Fatalf("the webhook never received job.created: %v", err)
		}
		if sig := hits[0].Header.Get("X-Service-Signature"); !webhooks.Verify(secret, hits[0].Body, sig) {
			t.Errorf("the delivery's X-Service-Signature %q does not verify with the secret shown", sig)
		}

		keyID := regexp.MustCompile(`/developer/keys/(key_[a-z0-9]+)/revoke`).FindStringSubmatch(owner.get("/developer").body)
		if keyID == nil {
			t.Fatal("no revoke link on the developer settings")
		}
		owner.post("/developer/keys/"+keyID[1]+"/revoke", url.Values{}).want(t, "revoke", http.StatusSeeOther, "/developer")
		res = apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/me", Key: key})
		wantAnswer(t, res, "the revoked key", http.StatusUnauthorized)
	})
}

// journeyLocation is the organisation's location of that name.
func journeyLocation(t *testing.T, w *testWorld, name string) (orgID string, loc workshop.Location) {
	t.Helper()
	ms, err := w.st.MembersByEmail(context.Background(), "boss@nord.example")
	if err != nil || len(ms) != 1 {
		t.Fatalf("the owner: %v, %v", ms, err)
	}
	locs, err := w.st.Locations(context.Background(), ms[0].Org.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locs {
		if l.Name == name {
			return ms[0].Org.ID, l
		}
	}
	t.Fatalf("no location %s among %v", name, locs)
	return "", loc
}

// memberID is the user id of the one user with that email.
func memberID(t *testing.T, w *testWorld, email string) string {
	t.Helper()
	ms, err := w.st.MembersByEmail(context.Background(), email)
	if err != nil || len(ms) != 1 {
		t.Fatalf("user %s: %v, %v", email, ms, err)
	}
	return ms[0].User.ID
}

// journeyResources are the location's one technician and one bay.
func journeyResources(t *testing.T, w *testWorld, orgID, locationID string) (workshop.Technician, workshop.Bay) {
	t.Helper()
	v := store.Visibility{OrgID: orgID, LocationID: locationID}
	techs, err := w.st.Technicians(context.Background(), v, workshop.PageRequest{Limit: 10})
	if err != nil || len(techs.Data) != 1 {
		t.Fatalf("technicians: %+v, %v", techs.Data, err)
	}
	bays, err := w.st.Bays(context.Background(), v, workshop.PageRequest{Limit: 10})
	if err != nil || len(bays.Data) != 1 {
		t.Fatalf("bays: %+v, %v", bays.Data, err)
	}
	return techs.Data[0], bays.Data[0]
}
