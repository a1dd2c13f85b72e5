package webapp

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A post is refused when any of Origin, Sec-Fetch-Site or (without
// Origin) Referer says it comes from another site (contract section 7);
// a post of this site's pages, a script's post that says nothing, and
// every read pass.
func TestCrossOrigin(t *testing.T) {
	t.Parallel()
	const host = "workshop.example:8080"
	for _, tc := range []struct {
		name    string
		method  string
		headers map[string]string
		refused bool
	}{
		{"a post of this site's page", "POST", map[string]string{"Origin": "https://workshop.example:8080", "Sec-Fetch-Site": "same-origin", "Referer": "https://workshop.example:8080/login"}, false},
		{"this site over plain http (a proxy ends TLS)", "POST", map[string]string{"Origin": "http://workshop.example:8080"}, false},
		{"the host in other case", "POST", map[string]string{"Origin": "https://WORKSHOP.example:8080"}, false},
		{"only the same-origin Referer", "POST", map[string]string{"Referer": "https://workshop.example:8080/locations/x/board"}, false},
		{"Sec-Fetch-Site none (typed, a bookmark)", "POST", map[string]string{"Sec-Fetch-Site": "none"}, false},
		{"no header at all (a script)", "POST", nil, false},
		{"a read from another site", "GET", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, false},
		{"HEAD from another site", "HEAD", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},

		{"another origin", "POST", map[string]string{"Origin": "https://evil.example"}, true},
		{"another port", "POST", map[string]string{"Origin": "https://workshop.example:9090"}, true},
		{"the default port is another origin", "POST", map[string]string{"Origin": "https://workshop.example"}, true},
		{"a subdomain", "POST", map[string]string{"Origin": "https://app.workshop.example:8080"}, true},
		{"Origin null (a sandboxed page, a file)", "POST", map[string]string{"Origin": "null"}, true},
		{"an empty Origin", "POST", map[string]string{"Origin": ""}, true},
		{"an Origin of another scheme", "POST", map[string]string{"Origin": "ftp://workshop.example:8080"}, true},
		{"another origin, Sec-Fetch-Site same-origin", "POST", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "same-origin"}, true},
		{"this origin, Sec-Fetch-Site cross-site", "POST", map[string]string{"Origin": "https://workshop.example:8080", "Sec-Fetch-Site": "cross-site"}, true},
		{"only Sec-Fetch-Site cross-site", "POST", map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{"only Sec-Fetch-Site same-site", "POST", map[string]string{"Sec-Fetch-Site": "same-site"}, true},
		{"only a foreign Referer", "POST", map[string]string{"Referer": "https://evil.example/form.html"}, true},
		{"a Referer of another port", "POST", map[string]string{"Referer": "https://workshop.example:1/x"}, true},
		{"a Referer that is no URL", "POST", map[string]string{"Referer": "::nonsense"}, true},
		{"a foreign Referer with Sec-Fetch-Site same-origin", "POST", map[string]string{"Referer": "https://evil.example/", "Sec-Fetch-Site": "same-origin"}, true},
		{"DELETE from another site", "DELETE", map[string]string{"Origin": "https://evil.example"}, true},
	} {
		r := httptest.NewRequest(tc.method, "http://"+host+"/logout", nil)
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		if got := crossOrigin(r) != ""; got != tc.refused {
			t.Errorf("%s: refused %v (%q), want %v", tc.name, got, crossOrigin(r), tc.refused)
		}
	}
}

// A refused request never reaches the page.
func TestSameOriginOnly(t *testing.T) {
	t.Parallel()
	reached := false
	h := sameOriginOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }),
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	r := httptest.NewRequest("POST", "http://workshop.example/logout", nil)
	r.Header.Set("Referer", "https://evil.example/")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusForbidden || reached {
		t.Errorf("got %d, page reached %v; want 403 and the page not reached", rec.Code, reached)
	}
}
