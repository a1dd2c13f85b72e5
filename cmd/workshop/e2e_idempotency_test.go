package main

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A request carrying a used Idempotency-Key is authorised as if it carried
// none, and is a repeat only when it acts on the same location (contract
// section 2): keys of another location, of fewer scopes, get their own
// refusal, never the stored response; a repeat gets the stored ETag and
// Location.
func TestIdempotencyReplayIsAuthorisedFirst(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 2)
		srv := startServer(t, db.URL)
		queens, berlin := a.locationKey(w, 0).Key, a.locationKey(w, 1).Key
		readOnly := w.key(operator.KeyRequest{UserID: a.Owner.ID, Scopes: "jobs:read,webhooks:read"}).Key
		free := w.org("Free Garage", workshop.PlanFree, 1)
		loc := a.Locations[0].ID
		post := func(key, idem, path, body string) *apitest.Response {
			t.Helper()
			return apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: path, Key: key,
				Header: http.Header{"Idempotency-Key": {idem}}, Body: body})
		}

		jobBody := `{"locationId":"` + loc + `","vehiclePlate":"Q-ID 1"}`
		first := post(a.Key.Key, "job", "/v1/scheduler/jobs", jobBody)
		if first.Status != 201 || first.Header.Get("ETag") == "" || first.Header.Get("Location") == "" {
			t.Fatalf("first create: got %d, ETag %q, Location %q: %s; want 201 with both", first.Status,
				first.Header.Get("ETag"), first.Header.Get("Location"), first.Body)
		}
		jobID := rawMembers(t, first.Body)["id"]
		stepPath := "/v1/scheduler/jobs/" + string(bytes.Trim(jobID, `"`)) + "/steps"
		firstStep := post(a.Key.Key, "step", stepPath, `{"label":"Brakes","estimatedDuration":30}`)
		if firstStep.Status != 201 {
			t.Fatalf("first step: got %d: %s", firstStep.Status, firstStep.Body)
		}
		firstDeliver := post(a.Key.Key, "deliver", "/v1/scheduler/jobs/"+string(bytes.Trim(jobID, `"`))+"/deliver", `{}`)
		if firstDeliver.Status != 200 || firstDeliver.Header.Get("ETag") == "" {
			t.Fatalf("first deliver: got %d, ETag %q: %s", firstDeliver.Status, firstDeliver.Header.Get("ETag"), firstDeliver.Body)
		}
		firstHook := post(queens, "hook", "/v1/platform/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["job.created"]}`)
		if firstHook.Status != 201 {
			t.Fatalf("first webhook: got %d: %s", firstHook.Status, firstHook.Body)
		}

		for _, tc := range []struct {
			name, key, idem, path, body string
			replayOf                    *apitest.Response // nil: the refusal below
			status                      int
			code, field                 string
		}{
			{"the same key repeats", a.Key.Key, "job", "/v1/scheduler/jobs", jobBody, first, 0, "", ""},
			{"a key of the job's location repeats", queens, "job", "/v1/scheduler/jobs", jobBody, first, 0, "", ""},
			{"a key of another location names the job's", berlin, "job", "/v1/scheduler/jobs", jobBody, nil, 403, "location_forbidden", "locationId"},
			{"a key of another location names none", berlin, "job", "/v1/scheduler/jobs", `{"vehiclePlate":"Q-ID 1"}`, nil, 422, "idempotency_key_reused", "Idempotency-Key"},
			{"a key without jobs:write", readOnly, "job", "/v1/scheduler/jobs", jobBody, nil, 403, "insufficient_scope", ""},
			{"a key of an organisation on the free plan", free.Key.Key, "job", "/v1/scheduler/jobs", jobBody, nil, 403, "plan_upgrade_required", ""},
			{"a step repeated by the job's location", queens, "step", stepPath, `{"label":"Brakes","estimatedDuration":30}`, firstStep, 0, "", ""},
			{"a step repeated by a key that cannot see the job", berlin, "step", stepPath, `{"label":"Brakes","estimatedDuration":30}`, nil, 404, "not_found", ""},
			{"a deliver repeated", a.Key.Key, "deliver", "/v1/scheduler/jobs/" + string(bytes.Trim(jobID, `"`)) + "/deliver", `{}`, firstDeliver, 0, "", ""},
			{"a webhook repeated by its location", queens, "hook", "/v1/platform/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["job.created"]}`, firstHook, 0, "", ""},
			{"a webhook repeated by another location", berlin, "hook", "/v1/platform/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["job.created"]}`, nil, 422, "idempotency_key_reused", "Idempotency-Key"},
			{"a webhook repeated by the organisation", a.Key.Key, "hook", "/v1/platform/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["job.created"]}`, nil, 422, "idempotency_key_reused", "Idempotency-Key"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := post(tc.key, tc.idem, tc.path, tc.body)
				if tc.replayOf == nil {
					wantProblem(t, got, tc.status, tc.code, tc.field)
					if got.Header.Get("Idempotent-Replayed") != "" {
						t.Errorf("Idempotent-Replayed: got %q on a refusal, want none", got.Header.Get("Idempotent-Replayed"))
					}
					return
				}
				want := tc.replayOf
				if got.Status != want.Status || got.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(got.Body, want.Body) {
					t.Fatalf("got %d, replayed %q: %s; want the first response replayed: %d %s", got.Status,
						got.Header.Get("Idempotent-Replayed"), got.Body, want.Status, want.Body)
				}
				for _, h := range []string{"ETag", "Location"} {
					if got.Header.Get(h) != want.Header.Get(h) {
						t.Errorf("%s: got %q, want the first response's %q", h, got.Header.Get(h), want.Header.Get(h))
					}
				}
			})
		}
	})
}

// An answer of 400 or more stores nothing for its Idempotency-Key
// (contract section 2): whatever refused the first request (the body, the
// document's rules, the service's, a record missing, a state), the same
// key then carries a corrected request, which is answered afresh and is
// the one the key replays.
func TestIdempotencyStoresNoRefusal(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		loc := a.Locations[0].ID
		srv := startServer(t, db.URL)
		tech, err := w.op.CreateTechnician(t.Context(), operator.TechnicianRequest{LocationID: loc, Name: "Ada", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		taken := w.job(a.ID, loc)
		job := w.job(a.ID, loc).ID
		post := func(idem, path, contentType, body string) *apitest.Response {
			t.Helper()
			return apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: path, Key: a.Key.Key,
				Header: http.Header{"Idempotency-Key": {idem}}, ContentType: contentType, Body: body})
		}
		jobBody := func(plate string) string { return `{"locationId":"` + loc + `","vehiclePlate":"` + plate + `"}` }
		for i, tc := range []struct {
			name                    string
			path, contentType, body string // the refused request
			status                  int
			code                    string
			fixedPath, fixedBody    string // the corrected one
			fixedStatus             int
		}{
			{"400 invalid_json", "/v1/scheduler/jobs", "", `{"locationId":`, 400, "invalid_json", "/v1/scheduler/jobs", jobBody("B-IK 1"), 201},
			{"400 unknown_field", "/v1/scheduler/jobs", "", `{"locationId":"` + loc + `","plate":"B-IK 2"}`, 400, "unknown_field", "/v1/scheduler/jobs", jobBody("B-IK 2"), 201},
			{"415 unsupported_media_type", "/v1/scheduler/jobs", "text/plain", jobBody("B-IK 3"), 415, "unsupported_media_type", "/v1/scheduler/jobs", jobBody("B-IK 3"), 201},
			{"422 by the document", "/v1/scheduler/jobs", "", `{"locationId":"` + loc + `","priority":"bogus"}`, 422, "validation_failed", "/v1/scheduler/jobs", jobBody("B-IK 4"), 201},
			{"422 by the service (a job number taken)", "/v1/scheduler/jobs", "", `{"locationId":"` + loc + `","jobNumber":"` + taken.JobNumber + `"}`, 422, "validation_failed",
				"/v1/scheduler/jobs", `{"locationId":"` + loc + `","jobNumber":"` + taken.JobNumber + `-2"}`, 201},
			{"404 a job that is not there", "/v1/scheduler/jobs/job_missing/steps", "", `{"label":"Brakes","estimatedDuration":30}`, 404, "not_found",
				"/v1/scheduler/jobs/" + job + "/steps", `{"label":"Brakes","estimatedDuration":30}`, 201},
			{"409 not clocked in", "/v1/scheduler/attendance/clock-out", "", `{"techId":"` + tech.ID + `"}`, 409, "not_clocked_in",
				"/v1/scheduler/attendance/clock-in", `{"techId":"` + tech.ID + `"}`, 201},
		} {
			t.Run(tc.name, func(t *testing.T) {
				idem := fmt.Sprintf("refused-%d", i)
				refused := post(idem, tc.path, tc.contentType, tc.body)
				wantProblem(t, refused, tc.status, tc.code, "")
				if again := post(idem, tc.path, tc.contentType, tc.body); again.Status != tc.status || again.Header.Get("Idempotent-Replayed") != "" {
					t.Errorf("the refused request again: got %d, Idempotent-Replayed %q; want %d answered afresh", again.Status, again.Header.Get("Idempotent-Replayed"), tc.status)
				}
				fixed := post(idem, tc.fixedPath, "", tc.fixedBody)
				if fixed.Status != tc.fixedStatus || fixed.Header.Get("Idempotent-Replayed") != "" {
					t.Fatalf("the corrected request under the same key: got %d, Idempotent-Replayed %q, body %s; want a fresh %d",
						fixed.Status, fixed.Header.Get("Idempotent-Replayed"), fixed.Body, tc.fixedStatus)
				}
				repeat := post(idem, tc.fixedPath, "", tc.fixedBody)
				if repeat.Status != tc.fixedStatus || repeat.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(repeat.Body, fixed.Body) {
					t.Errorf("the corrected request repeated: got %d, Idempotent-Replayed %q; want its %d replayed", repeat.Status, repeat.Header.Get("Idempotent-Replayed"), tc.fixedStatus)
				}
			})
		}
	})
}
