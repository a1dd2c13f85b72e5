package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Bodies are UTF-8 JSON: another charset is 415, bytes that are not UTF-8
// are invalid_json, and invalid_json says where the body went wrong; a
// limit out of range says the range, however large it is.
func TestEncodingsAndRanges(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		loc := a.Locations[0].ID
		for _, tc := range []struct {
			name        string
			req         apitest.Request
			status      int
			code, field string
			detailHas   string
		}{
			{"a body that is not UTF-8", apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs",
				Body: []byte("{\"locationId\":\"" + loc + "\",\"vehiclePlate\":\"B-\xff\xfe 1\"}")}, 400, "invalid_json", "", "UTF-8"},
			{"charset latin1", apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", ContentType: "application/json; charset=iso-8859-1",
				Body: `{"locationId":"` + loc + `"}`}, 415, "unsupported_media_type", "", "utf-8"},
			{"charset utf-8 is taken", apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", ContentType: "application/json; charset=UTF-8",
				Body: `{"locationId":"` + loc + `","vehiclePlate":"B-CS 1"}`}, 201, "", "", ""},
			{"a syntax error says where", apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs",
				Body: "{\n  \"locationId\": \"" + loc + "\",\n  \"vehiclePlate\": oops\n}"}, 400, "invalid_json", "", "line 3, column 19"},
			{"a body cut short says where", apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs",
				Body: `{"locationId":"` + loc + `"`}, 400, "invalid_json", "", "ends early"},
			{"a huge limit", apitest.Request{Method: "GET", Path: "/v1/scheduler/jobs?limit=999999999999"}, 400, "invalid_parameter", "limit", "limit must be between 1 and 200"},
			{"a limit beyond any integer", apitest.Request{Method: "GET", Path: "/v1/scheduler/jobs?limit=99999999999999999999999"}, 400, "invalid_parameter", "limit", "limit must be between 1 and 200"},
			{"a limit of zero", apitest.Request{Method: "GET", Path: "/v1/scheduler/jobs?limit=0"}, 400, "invalid_parameter", "limit", "limit must be between 1 and 200"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				tc.req.Key = a.Key.Key
				got, err := apitest.Unchecked(srv.URL, tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if tc.code == "" {
					if got.Status != tc.status {
						t.Fatalf("got %d: %s, want %d", got.Status, got.Body, tc.status)
					}
					return
				}
				p := wantProblem(t, got, tc.status, tc.code, tc.field)
				if !strings.Contains(p.Detail, tc.detailHas) {
					t.Errorf("detail: got %q, want it to say %q", p.Detail, tc.detailHas)
				}
			})
		}
	})
}

// Every answer says its Content-Type is to be believed (nosniff); answers
// that carry a signing secret are kept by no cache.
func TestResponseHeadersOfSecrets(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		created := apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/platform/webhooks", Key: a.Key.Key,
			Body: `{"url":"http://127.0.0.1:9/hook","events":["job.created"]}`})
		var hook struct{ Id, UpdatedAt string }
		created.Decode(t, &hook)
		rotated := apitest.Call(t, srv.URL, apitest.Request{Method: "PATCH", Path: "/v1/platform/webhooks/" + hook.Id, Key: a.Key.Key,
			Body: `{"rotateSecret":true}`})
		read := apitest.Call(t, srv.URL, apitest.Request{Method: "GET", Path: "/v1/platform/webhooks/" + hook.Id, Key: a.Key.Key})
		unknown, err := apitest.Unchecked(srv.URL, apitest.Request{Method: "GET", Path: "/nowhere"})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name    string
			got     *apitest.Response
			noStore bool
		}{
			{"webhook created", created, true},
			{"secret rotated", rotated, true},
			{"webhook read", read, false},
			{"unknown path", unknown, true},
		} {
			if got := tc.got.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("%s: X-Content-Type-Options got %q, want nosniff", tc.name, got)
			}
			if got := tc.got.Header.Get("Cache-Control") == "no-store"; got != tc.noStore {
				t.Errorf("%s (%d): Cache-Control no-store got %v, want %v", tc.name, tc.got.Status, got, tc.noStore)
			}
		}
	})
}

// A body that trickles is cut once the body timeout has passed since the
// request began; a body sent at once is not (the test's server cuts after
// 300ms, so a stalled writer is answered quickly).
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL, apitest.WithBodyTimeout(300*time.Millisecond))
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		body := `{"locationId":"` + a.Locations[0].ID + `","vehiclePlate":"B-SL 1"}`
		fmt.Fprintf(conn, "POST /v1/scheduler/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			a.Key.Key, len(body), body[:5]) // and then nothing more: the writer stalls
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on a broken server, not a timing
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a stalled body: %v", err)
		}
		got, _ := io.ReadAll(resp.Body)
		p := wantProblem(t, &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: got}, 400, "invalid_json", "")
		if !strings.Contains(p.Detail, "did not arrive within 300ms") {
			t.Errorf("detail: got %q, want it to say the body timeout", p.Detail)
		}
		if r := apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: a.Key.Key, Body: body}); r.Status != 201 {
			t.Errorf("a body sent at once: got %d: %s, want 201", r.Status, r.Body)
		}
	})
}
