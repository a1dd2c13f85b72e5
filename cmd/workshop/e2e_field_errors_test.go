package main

// Every field error of a request is listed in errors[], in messages
// written for people (issue 22).

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/client"
	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// machineText is what a message for people must not show: a regular
// expression, a Go time layout, JSON quoted by %q, an HTML escape, or the
// validator's own wording.
var machineText = regexp.MustCompile(`\^|\$"|\[A-Z|\\d|2006-01-02|15:04|\\"|\\u00|regular expression|Error at|doesn't match|JSON pointer`)

func TestEveryFieldErrorListed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		loc := a.Locations[0].ID
		srv := startServer(t, db.URL)
		j := w.job(a.ID, loc)
		st := w.step(a.ID, j.ID)
		tech, err := w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: loc, Name: "Ada", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		future := time.Now().Add(48 * time.Hour).Format(time.RFC3339)
		long := strings.Repeat("x", 300)
		for _, tc := range []struct {
			name, method, path string
			body               map[string]any
			fields             []string // every field named in errors[]
		}{
			{"job create, schema", "POST", "/v1/scheduler/jobs",
				map[string]any{"locationId": loc, "priority": "bogus", "source": "fax", "vehiclePlate": long},
				[]string{"priority", "source", "vehiclePlate"}},
			{"job create, rules", "POST", "/v1/scheduler/jobs",
				map[string]any{"locationId": loc, "jobNumber": "  ", "arrivalTime": future},
				[]string{"jobNumber", "arrivalTime"}},
			{"job create, formats", "POST", "/v1/scheduler/jobs",
				map[string]any{"locationId": loc, "promiseTime": "tomorrow", "arrivalTime": "2026-11-21 10:00", "jobNumber": ""},
				[]string{"arrivalTime", "jobNumber", "promiseTime"}},
			{"step create", "POST", "/v1/scheduler/jobs/" + j.ID + "/steps",
				map[string]any{"label": "", "phase": -1, "estimatedDuration": 0},
				[]string{"label", "phase", "estimatedDuration"}},
			{"step patch", "PATCH", "/v1/scheduler/jobs/" + j.ID + "/steps/" + st.ID,
				map[string]any{"updatedAt": st.UpdatedAt.String(), "label": " ", "techIds": []string{"tec_nobody"}, "bayId": "bay_nowhere"},
				[]string{"label", "techIds", "bayId"}},
			{"webhook create", "POST", "/v1/platform/webhooks",
				map[string]any{"url": "ftp://example.com/hook", "events": []string{"job.exploded"}, "isActive": "yes"},
				[]string{"isActive"}},
			{"webhook create, rules", "POST", "/v1/platform/webhooks",
				map[string]any{"url": "ftp://example.com/hook", "events": []string{"job.exploded", "job.created"}},
				[]string{"events", "url"}},
			{"catalog put", "PUT", "/v1/scheduler/catalog/OIL",
				map[string]any{"locationId": loc, "name": "", "estimatedDuration": 0, "requiredSkills": "brakes"},
				[]string{"name", "estimatedDuration", "requiredSkills"}},
			{"step create, rules", "POST", "/v1/scheduler/jobs/" + j.ID + "/steps",
				map[string]any{"label": "  ", "serviceCode": "NOPE"},
				[]string{"label", "serviceCode"}},
			{"catalog put, rules", "PUT", "/v1/scheduler/catalog/OIL",
				map[string]any{"locationId": loc, "name": "   ", "estimatedDuration": 30},
				[]string{"name"}},
			{"clock-in", "POST", "/v1/scheduler/attendance/clock-in",
				map[string]any{"techId": tech.ID, "at": future},
				[]string{"at"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := apitest.Call(t, srv.URL, apitest.Request{Method: tc.method, Path: tc.path, Key: a.Key.Key, Body: tc.body})
				p := wantProblem(t, r, 422, "validation_failed", "")
				if errs := fieldErrors(p); len(errs) == 0 || p.Field == nil || *p.Field != errs[0].Field {
					t.Errorf("field: got %v, want the first of errors[]; body %s", ptrValue(p.Field), r.Body)
				}
				var got []string
				for _, e := range fieldErrors(p) {
					got = append(got, e.Field)
					if machineText.MatchString(e.Message) || e.Message == "" {
						t.Errorf("errors[%s].message is not written for people: %q", e.Field, e.Message)
					}
				}
				slices.Sort(got)
				want := slices.Sorted(slices.Values(tc.fields))
				if !slices.Equal(got, want) {
					t.Errorf("errors[] fields: got %v, want %v; body %s", got, want, r.Body)
				}
				if machineText.MatchString(p.Detail) || strings.Contains(string(r.Body), `\u003c`) {
					t.Errorf("detail is not written for people: %s", r.Body)
				}
			})
		}
	})
}

// fieldErrors is a problem's errors[], none when it has none.
func fieldErrors(p client.Problem) []client.FieldError {
	if p.Errors == nil {
		return nil
	}
	return *p.Errors
}

// Refusals of malformed requests say what to send, in words.
func TestMessagesForPeople(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		loc := a.Locations[0].ID
		srv := startServer(t, db.URL)
		for _, tc := range []struct {
			name, method, path string
			body               any
			status             int
			code, field        string
			says               string // a word the detail must have
		}{
			{"no body", "POST", "/v1/scheduler/jobs", nil, 400, "invalid_json", "", "JSON body"},
			{"limit not a number", "GET", "/v1/scheduler/jobs?limit=ten", nil, 400, "invalid_parameter", "limit", "whole number"},
			{"limit out of range", "GET", "/v1/scheduler/jobs?limit=0", nil, 400, "invalid_parameter", "limit", "between 1 and 200"},
			{"updatedSince not a time", "GET", "/v1/scheduler/jobs?updatedSince=yesterday", nil, 400, "invalid_parameter", "updatedSince", "date and time"},
			{"plan date not a date", "GET", "/v1/scheduler/plan?locationId=" + loc + "&date=2026-13-45", nil, 400, "invalid_parameter", "date", "2026-11-21"},
			{"an enum", "POST", "/v1/scheduler/jobs", map[string]any{"locationId": loc, "priority": "<urgent>"}, 422, "validation_failed", "priority", "low, normal, high or urgent"},
			{"an unknown tag is named as sent", "POST", "/v1/scheduler/jobs/" + w.job(a.ID, loc).ID + "/cancel",
				map[string]any{"reasonTags": []string{"<b>gone</b>"}}, 422, "validation_failed", "reasonTags", "<b>gone</b>"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := apitest.Call(t, srv.URL, apitest.Request{Method: tc.method, Path: tc.path, Key: a.Key.Key, Body: tc.body})
				p := wantProblem(t, r, tc.status, tc.code, tc.field)
				if !strings.Contains(p.Detail, tc.says) {
					t.Errorf("detail %q does not say %q", p.Detail, tc.says)
				}
				for _, m := range append([]string{p.Detail}, messagesOf(p)...) {
					if machineText.MatchString(m) || strings.Contains(m, "strconv") || strings.Contains(m, "oapi.") {
						t.Errorf("message not written for people: %q", m)
					}
				}
				if strings.Contains(string(r.Body), `\u003c`) || strings.Contains(string(r.Body), `\u003e`) {
					t.Errorf("the problem JSON escapes < and > for HTML: %s", r.Body)
				}
			})
		}
	})
}

func messagesOf(p client.Problem) []string {
	var out []string
	for _, e := range fieldErrors(p) {
		out = append(out, e.Message)
	}
	return out
}
