package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// fuzzAPI is the real handler on a fresh SQLite store with one
// organisation: an org-scoped key, a key pinned to its location, and a job
// to PATCH.
type fuzzAPI struct {
	h              http.Handler
	st             *store.Store
	orgID, locID   string
	otherLocID     string
	orgKey, locKey string
	jobID          string
}

func newFuzzAPI(f *testing.F) *fuzzAPI {
	f.Helper()
	ctx := context.Background()
	st := storetest.Open(f, storetest.SQLiteURL(f))
	op := operator.New(st)
	org, err := op.CreateOrg(ctx, "Fuzz Motors", workshop.PlanPro)
	if err != nil {
		f.Fatal(err)
	}
	loc, err := op.CreateLocation(ctx, org.ID, "Berlin", "Europe/Berlin", "EUR")
	if err != nil {
		f.Fatal(err)
	}
	other, err := op.CreateLocation(ctx, org.ID, "Tokyo", "Asia/Tokyo", "JPY")
	if err != nil {
		f.Fatal(err)
	}
	user, err := op.CreateUser(ctx, org.ID, "owner@example.com", workshop.RoleOwner, false)
	if err != nil {
		f.Fatal(err)
	}
	orgKey, err := op.CreateKey(ctx, operator.KeyRequest{UserID: user.ID})
	if err != nil {
		f.Fatal(err)
	}
	locKey, err := op.CreateKey(ctx, operator.KeyRequest{UserID: user.ID, LocationID: loc.ID})
	if err != nil {
		f.Fatal(err)
	}
	api, err := httpapi.New(st, httpapi.Config{ArrivalSkew: 5 * time.Minute})
	if err != nil {
		f.Fatal(err)
	}
	a := &fuzzAPI{h: api.Handler(), st: st, orgID: org.ID, locID: loc.ID, otherLocID: other.ID, orgKey: orgKey.Key, locKey: locKey.Key}
	rec := a.do(f, http.MethodPost, "/v1/scheduler/jobs", a.orgKey, []byte(`{"locationId":"`+loc.ID+`","externalKey":"fuzz-existing","arrivalTime":null}`))
	var j struct {
		ID string `json:"id"`
	}
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &j) != nil || j.ID == "" {
		f.Fatalf("create the job to PATCH: %d %s", rec.Code, rec.Body)
	}
	a.jobID = j.ID
	return a
}

func (a *fuzzAPI) do(tb testing.TB, method, path, key string, body []byte) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	return rec
}

// expand fills the placeholders seeds use for values only known at run
// time: {{loc}}, {{otherLoc}} and {{updatedAt}} (the PATCHed job's current one).
func (a *fuzzAPI) expand(tb testing.TB, body []byte) []byte {
	if !bytes.Contains(body, []byte("{{")) {
		return body
	}
	body = bytes.ReplaceAll(body, []byte("{{loc}}"), []byte(a.locID))
	body = bytes.ReplaceAll(body, []byte("{{otherLoc}}"), []byte(a.otherLocID))
	if bytes.Contains(body, []byte("{{updatedAt}}")) {
		j, err := a.st.Job(context.Background(), store.Visibility{OrgID: a.orgID}, a.jobID)
		if err != nil {
			tb.Fatalf("read the PATCHed job: %v", err)
		}
		body = bytes.ReplaceAll(body, []byte("{{updatedAt}}"), []byte(j.UpdatedAt.String()))
	}
	return body
}

// checkResponse: never 5xx; a 4xx is a problem with its code; a 2xx is JSON.
func checkResponse(t *testing.T, what string, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	switch {
	case rec.Code >= 500:
		t.Fatalf("%s with body %q: status %d, want no 5xx; response %s", what, body, rec.Code, rec.Body)
	case rec.Code >= 400:
		if ct != "application/problem+json" {
			t.Fatalf("%s with body %q: status %d Content-Type %q, want application/problem+json", what, body, rec.Code, rec.Header().Get("Content-Type"))
		}
		var p struct {
			Status    int    `json:"status"`
			Code      string `json:"code"`
			RequestID string `json:"requestId"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code == "" || p.Status != rec.Code || p.RequestID == "" {
			t.Fatalf("%s with body %q: status %d problem %s (%v), want status, code and requestId", what, body, rec.Code, rec.Body, err)
		}
	case rec.Code >= 200 && rec.Code < 300:
		var j struct {
			ID string `json:"id"`
		}
		if ct != "application/json" || json.Unmarshal(rec.Body.Bytes(), &j) != nil || !strings.HasPrefix(j.ID, workshop.PrefixJob) {
			t.Fatalf("%s with body %q: status %d %q body %s, want a job as application/json", what, body, rec.Code, ct, rec.Body)
		}
	default:
		t.Fatalf("%s with body %q: status %d, want 2xx or 4xx", what, body, rec.Code)
	}
}

// FuzzCreateJobBody sends arbitrary bytes as the body of a job create (with
// an org key and with a location key) and of a job PATCH through the real
// handler chain: whatever arrives, the answer is never a 5xx, and every
// 4xx is a problem+json with a code. `go test` runs the seeds only.
func FuzzCreateJobBody(f *testing.F) {
	for _, seed := range []string{
		// valid
		`{"locationId":"{{loc}}"}`,
		`{"locationId":"{{loc}}","externalKey":"dms-1","jobNumber":"RO-2026-0420","vehiclePlate":"B-AB 1234","vehicleMake":"VW",` +
			`"vehicleModel":"Golf","promiseTime":"2026-11-22T16:00:00+01:00","priority":"high","source":"dms","arrivalTime":null}`,
		`{"locationId":"{{loc}}","externalKey":"fuzz-existing","priority":"nope"}`,
		`{"locationId":"{{loc}}","arrivalTime":"2020-01-01T00:00:00-05:00"}`,
		`{"updatedAt":"{{updatedAt}}","vehiclePlate":"HH-1"}`,
		`{"updatedAt":"{{updatedAt}}","arrivalTime":"2021-06-01T10:00:00+02:00","promiseTime":null,"vehicleMake":null}`,
		`{"updatedAt":"{{updatedAt}}","arrivalTime":null,"jobNumber":"RO-X"}`,
		`{"locationId":"{{otherLoc}}"}`,
		// invalid
		``, `null`, `[]`, `"x"`, `1`, `{`, `{}`, `{"a":1}`, `{"locationId":1}`, `{"locationId":null}`,
		`{"locationId":"loc_missing"}`, `{"locationId":"{{loc}}","jobNumber":""}`, `{"locationId":"{{loc}}","jobNumber":"   "}`,
		`{"locationId":"{{loc}}","externalKey":""}`, `{"locationId":"{{loc}}","arrivalTime":"2999-01-01T00:00:00Z"}`,
		`{"locationId":"{{loc}}","arrivalTime":"yesterday"}`, `{"locationId":"{{loc}}","promiseTime":"2026-13-45T99:00:00Z"}`,
		`{"locationId":"{{loc}}","promiseTime":"0000-01-01T00:00:00+01:00"}`, `{"locationId":"{{loc}}","arrivalTime":"0001-01-01T00:00:00-23:59"}`,
		`{"locationId":"{{loc}}","promiseTime":"9999-12-31T23:59:59-23:59"}`,
		`{"locationId":"{{loc}}","vehiclePlate":"` + strings.Repeat("x", 300) + `"}`,
		`{"locationId":"{{loc}}","vehiclePlate":"\u0000\ud800"}`, "{\"locationId\":\"{{loc}}\",\"vehiclePlate\":\"\xff\xfe\"}",
		`{"locationId":"{{loc}}","locationId":"{{otherLoc}}"}`, `{"locationId":"{{loc}}","priority":["high"]}`,
		`{"updatedAt":"2000-01-01T00:00:00Z","vehiclePlate":"X"}`, `{"vehiclePlate":"X"}`, `{"updatedAt":"{{updatedAt}}","jobNumber":""}`,
		`{"updatedAt":"{{updatedAt}}","jobNumber":null}`, `{"updatedAt":"{{updatedAt}}","status":"delivered"}`,
		`{"updatedAt":1e400}`, `{"updatedAt":"{{updatedAt}}","arrivalTime":"2999-01-01T00:00:00Z"}`,
		strings.Repeat(`[`, 10000), `{"locationId":"{{loc}}"} trailing`,
	} {
		f.Add([]byte(seed))
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		body := a.expand(t, raw)
		checkResponse(t, "POST /v1/scheduler/jobs (org key)", body, a.do(t, http.MethodPost, "/v1/scheduler/jobs", a.orgKey, body))
		checkResponse(t, "POST /v1/scheduler/jobs (location key)", body, a.do(t, http.MethodPost, "/v1/scheduler/jobs", a.locKey, body))
		checkResponse(t, "PATCH /v1/scheduler/jobs/{id}", body, a.do(t, http.MethodPatch, "/v1/scheduler/jobs/"+a.jobID, a.orgKey, body))
	})
}
