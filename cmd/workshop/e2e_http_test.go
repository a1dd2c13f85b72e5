package main

// End-to-end tests of the HTTP conventions of issue 22: 405 with Allow,
// ETags (304 and 412), gzip, and idempotency over the parsed body.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/httpapi/apitest"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		j := w.job(a.ID, a.Locations[0].ID)
		for _, tc := range []struct {
			method, path string
			status       int
			allow        string
		}{
			{"DELETE", "/v1/platform/me", 405, "GET"},
			{"PUT", "/v1/scheduler/jobs/" + j.ID, 405, "GET, PATCH"},
			{"DELETE", "/v1/scheduler/jobs", 405, "GET, POST"},
			{"GET", "/v1/scheduler/catalog/OIL", 405, "PUT"},
			{"GET", "/v1/scheduler/jobs/" + j.ID + "/nothing", 404, ""},
		} {
			r := apitest.Call(t, srv.URL, apitest.Request{Method: tc.method, Path: tc.path, Key: a.Key.Key})
			code := map[int]string{405: "method_not_allowed", 404: "not_found"}[tc.status]
			wantProblem(t, r, tc.status, code, "")
			if got := r.Header.Get("Allow"); got != tc.allow {
				t.Errorf("%s %s: Allow got %q, want %q", tc.method, tc.path, got, tc.allow)
			}
		}
		t.Run("without a key it is 401 first", func(t *testing.T) {
			r := apitest.Call(t, srv.URL, apitest.Request{Method: "DELETE", Path: "/v1/platform/me"})
			wantProblem(t, r, 401, "missing_key", "")
		})
	})
}

func TestETags(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		loc := a.Locations[0].ID
		srv := startServer(t, db.URL)
		key := a.Key.Key
		call := func(t *testing.T, method, path, etagHeader, etag string, body any) *apitest.Response {
			t.Helper()
			h := http.Header{}
			if etag != "" {
				h.Set(etagHeader, etag)
			}
			return apitest.Call(t, srv.URL, apitest.Request{Method: method, Path: path, Key: key, Header: h, Body: body})
		}
		tech, err := w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: loc, Name: "Ada", WIPLimit: 1})
		if err != nil {
			t.Fatal(err)
		}
		bay, err := w.op.CreateBay(context.Background(), loc, "Bay 1", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var hook struct{ Id string }
		apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/platform/webhooks", Key: key,
			Body: map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"job.created"}}}).Decode(t, &hook)
		records := []struct {
			name, path  string
			patch       map[string]any
			bodyVersion bool // the PATCH also takes updatedAt in its body
		}{
			{"job", "/v1/scheduler/jobs/" + w.job(a.ID, loc).ID, map[string]any{"vehiclePlate": "B-ET 1"}, true},
			{"technician", "/v1/scheduler/technicians/" + tech.ID, map[string]any{"status": "on_break"}, true},
			{"bay", "/v1/scheduler/bays/" + bay.ID, map[string]any{"status": "maintenance"}, true},
			{"webhook", "/v1/platform/webhooks/" + hook.Id, map[string]any{"isActive": false}, false},
		}
		for _, rec := range records {
			t.Run(rec.name, func(t *testing.T) {
				first := call(t, "GET", rec.path, "", "", nil)
				etag := first.Header.Get("ETag")
				if first.Status != 200 || etag == "" {
					t.Fatalf("GET: got %d with ETag %q, want 200 with an ETag", first.Status, etag)
				}
				if r := call(t, "GET", rec.path, "If-None-Match", etag, nil); r.Status != 304 || len(r.Body) != 0 || r.Header.Get("ETag") != etag {
					t.Errorf("GET If-None-Match current: got %d, ETag %q, body %q; want 304, the ETag, no body", r.Status, r.Header.Get("ETag"), r.Body)
				}
				if r := call(t, "GET", rec.path, "If-None-Match", `"other", `+etag, nil); r.Status != 304 {
					t.Errorf("GET If-None-Match list with the current: got %d, want 304", r.Status)
				}
				if r := call(t, "GET", rec.path, "If-None-Match", `"0"`, nil); r.Status != 200 || len(r.Body) == 0 {
					t.Errorf("GET If-None-Match another: got %d with %d bytes, want 200 with the record", r.Status, len(r.Body))
				}

				if rec.bodyVersion {
					disagreeing := map[string]any{"updatedAt": "2020-01-01T00:00:00.000000Z"}
					for k, v := range rec.patch {
						disagreeing[k] = v
					}
					wantProblem(t, call(t, "PATCH", rec.path, "If-Match", etag, disagreeing), 412, "precondition_failed", "")
				}

				changed := call(t, "PATCH", rec.path, "If-Match", etag, rec.patch)
				newTag := changed.Header.Get("ETag")
				if changed.Status != 200 || newTag == "" || newTag == etag {
					t.Fatalf("PATCH If-Match current: got %d with ETag %q (was %q), want 200 with a new ETag; body %s", changed.Status, newTag, etag, changed.Body)
				}
				if r := call(t, "GET", rec.path, "If-None-Match", etag, nil); r.Status != 200 {
					t.Errorf("GET If-None-Match of the old version: got %d, want 200", r.Status)
				}
				p := wantProblem(t, call(t, "PATCH", rec.path, "If-Match", etag, rec.patch), 412, "precondition_failed", "")
				var now struct{ UpdatedAt time.Time }
				changed.Decode(t, &now)
				if p.CurrentUpdatedAt == nil || !p.CurrentUpdatedAt.Equal(now.UpdatedAt) {
					t.Errorf("412 currentUpdatedAt: got %v, want %v", ptrValue(p.CurrentUpdatedAt), now.UpdatedAt)
				}
				if r := call(t, "GET", rec.path, "If-None-Match", newTag, nil); r.Status != 304 {
					t.Errorf("after the refused PATCH: got %d, want 304 (nothing applied)", r.Status)
				}
				wantProblem(t, call(t, "PATCH", rec.path, "If-Match", "not-an-etag", rec.patch), 400, "invalid_parameter", "If-Match")
				wantProblem(t, call(t, "PATCH", rec.path, "If-Match", `"garbage"`, rec.patch), 400, "invalid_parameter", "If-Match")
				// A tab is the one control character net/http lets through
				// (see TestHeaderControlCharacters for the others).
				wantProblem(t, call(t, "PATCH", rec.path, "If-Match", "\"a\tb\"", rec.patch), 400, "invalid_parameter", "If-Match")
				for _, tags := range []string{"\"a\tb\"", "garbage", `"unterminated`, etag + " " + etag} {
					wantProblem(t, call(t, "GET", rec.path, "If-None-Match", tags, nil), 400, "invalid_parameter", "If-None-Match")
				}
			})
		}

		t.Run("deliver and cancel", func(t *testing.T) {
			for _, tc := range []struct {
				action string
				body   any
			}{
				{"deliver", nil},
				{"cancel", map[string]any{"reasonTags": []string{"customer_declined"}}},
			} {
				path := "/v1/scheduler/jobs/" + w.job(a.ID, loc).ID
				etag := call(t, "GET", path, "", "", nil).Header.Get("ETag")
				if r := call(t, "PATCH", path, "If-Match", etag, map[string]any{"vehiclePlate": "B-ET 2"}); r.Status != 200 {
					t.Fatalf("PATCH: got %d: %s", r.Status, r.Body)
				}
				wantProblem(t, call(t, "POST", path+"/"+tc.action, "If-Match", etag, tc.body), 412, "precondition_failed", "")
				var j struct{ Status string }
				call(t, "GET", path, "", "", nil).Decode(t, &j)
				if j.Status == "delivered" || j.Status == "cancelled" {
					t.Errorf("%s with a stale If-Match: the job is %s, want nothing applied", tc.action, j.Status)
				}
				current := call(t, "GET", path, "", "", nil).Header.Get("ETag")
				if r := call(t, "POST", path+"/"+tc.action, "If-Match", current, tc.body); r.Status != 200 || r.Header.Get("ETag") == current {
					t.Errorf("%s with the current If-Match: got %d, ETag %q; want 200 with a new ETag; body %s", tc.action, r.Status, r.Header.Get("ETag"), r.Body)
				}
			}
		})
	})
}

// TestHeaderControlCharacters pins what docs/errors.md says of a header
// with a control character other than a tab (a malformed If-Match, say):
// Go's HTTP server refuses the request itself, before any handler, with
// a plain-text 400, no X-Request-Id and no problem body, and closes the
// connection. Should net/http ever hand such a request on, this fails,
// and the documentation is to change with it.
func TestHeaderControlCharacters(t *testing.T) {
	t.Parallel()
	srv := startServer(t, storetest.SQLiteURL(t))
	for _, header := range []string{"If-Match: \"a\x01b\"", "If-None-Match: \"a\x1bb\"", "If-Match: \"a\x7fb\""} {
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(conn, "GET /v1/scheduler/jobs/job_x HTTP/1.1\r\nHost: "+srv.Addr+"\r\n"+header+"\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%q: %v", header, err)
		}
		body, _ := io.ReadAll(res.Body)
		conn.Close()
		if res.StatusCode != 400 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || res.Header.Get("X-Request-Id") != "" ||
			string(body) != "400 Bad Request" || !res.Close {
			t.Errorf("%q: got %d %v %q (close %v); want net/http's own plain-text \"400 Bad Request\", the connection closed, as documented",
				header, res.StatusCode, res.Header, body, res.Close)
		}
	}
}

func TestCompression(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		for range 8 {
			w.job(a.ID, a.Locations[0].ID)
		}
		srv := startServer(t, db.URL)
		// A transport of its own: Go's would ask for gzip itself and hide
		// the encoding by decoding.
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		get := func(t *testing.T, path, acceptEncoding string) (*http.Response, []byte) {
			t.Helper()
			req, err := http.NewRequest("GET", srv.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+a.Key.Key)
			if acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", acceptEncoding)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			return resp, body
		}
		for _, tc := range []struct {
			name, path, acceptEncoding string
			gzipped                    bool
		}{
			{"a list over 1 KiB, gzip asked", "/v1/scheduler/jobs", "gzip, deflate", true},
			{"the OpenAPI document, any coding", "/v1/openapi.json", "*", true},
			{"a list over 1 KiB, gzip refused", "/v1/scheduler/jobs", "gzip;q=0", false},
			{"a list over 1 KiB, nothing asked", "/v1/scheduler/jobs", "", false},
			{"a small body", "/v1/platform/me", "gzip", false},
			{"a problem", "/v1/scheduler/jobs?colour=red", "gzip", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := get(t, tc.path, tc.acceptEncoding)
				if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
					t.Fatalf("gzipped got %v, want %v (Content-Encoding %q, %d bytes)", got, tc.gzipped, resp.Header.Get("Content-Encoding"), len(body))
				}
				if v := resp.Header.Values("Vary"); len(v) == 0 || v[0] != "Accept-Encoding" {
					t.Errorf("Vary: got %q, want Accept-Encoding", v)
				}
				if tc.gzipped {
					zr, err := gzip.NewReader(bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					if body, err = io.ReadAll(zr); err != nil {
						t.Fatal(err)
					}
					if len(body) <= 1024 {
						t.Errorf("gzipped a body of %d bytes, want only over 1 KiB", len(body))
					}
				}
				if !json.Valid(body) {
					t.Errorf("the body is not JSON: %.200s", body)
				}
				if resp.StatusCode < 400 {
					for _, p := range apitest.CheckResponse(resp.Request, resp.StatusCode, resp.Header, body) {
						t.Error(p)
					}
				}
			})
		}
	})
}

func TestIdempotencyComparesParsedBodies(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		w := newWorld(t, db.URL)
		a := w.org("Alpha Motors", workshop.PlanPro, 1)
		srv := startServer(t, db.URL)
		loc := a.Locations[0].ID
		post := func(t *testing.T, body string) *apitest.Response {
			t.Helper()
			return apitest.Call(t, srv.URL, apitest.Request{Method: "POST", Path: "/v1/scheduler/jobs", Key: a.Key.Key,
				Header: http.Header{"Idempotency-Key": {"parsed-" + db.Name}}, Body: body})
		}
		first := post(t, `{"locationId":"`+loc+`","vehiclePlate":"B-ID 1","priority":"high"}`)
		if first.Status != 201 {
			t.Fatalf("first: got %d: %s", first.Status, first.Body)
		}
		again := post(t, "{\n  \"priority\": \"high\",\n  \"vehiclePlate\": \"B-ID 1\",\n  \"locationId\": \""+loc+"\"\n}")
		if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
			t.Errorf("same body reordered: got %d, replayed %q, body %s; want the first response replayed", again.Status, again.Header.Get("Idempotent-Replayed"), again.Body)
		}
		wantProblem(t, post(t, `{"locationId":"`+loc+`","vehiclePlate":"B-ID 2","priority":"high"}`), 422, "idempotency_key_reused", "Idempotency-Key")
	})
}
