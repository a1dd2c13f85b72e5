package webapp

import (
	"errors"
	"net/http"
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestDeskRefusal: a refused job write puts its reason beside the field
// it names (renamed to the form's), or at the top of the form, with a 4xx;
// only an error that is not the domain's is a fault (500).
func TestDeskRefusal(t *testing.T) {
	t.Parallel()
	var v workshop.Validation
	v.AddCode("techIds", "wip_limit_exceeded", "Over the limit.")
	v.Add("serviceCode", "Unknown service.")
	v.Add("locationId", "No such location.")
	stale := workshop.Micros(7)
	for _, tc := range []struct {
		name   string
		err    error
		status int
		ok     bool
		field  string
	}{
		{"validation", v.Err(), http.StatusUnprocessableEntity, true, "techIds"},
		{"validation renamed", v.Err(), http.StatusUnprocessableEntity, true, "serviceCodes"},
		{"validation of a field not on the form", v.Err(), http.StatusUnprocessableEntity, true, ""},
		{"stale", &workshop.Error{Code: workshop.CodeStaleUpdatedAt, CurrentUpdatedAt: &stale}, http.StatusConflict, true, ""},
		{"day close", workshop.Errorf(workshop.CodeDayCloseInProgress, "closing"), http.StatusConflict, true, ""},
		{"transition", workshop.Errorf(workshop.CodeInvalidTransition, "delivered"), http.StatusConflict, true, ""},
		{"not found", workshop.NotFound("step"), http.StatusNotFound, true, ""},
		{"fault", errors.New("disk on fire"), http.StatusInternalServerError, false, ""},
	} {
		f := form{Values: map[string]string{"techIds": "", "serviceCodes": ""}, Errors: map[string]string{}}
		status, ok := f.refusal(tc.err, map[string]string{"serviceCode": "serviceCodes"})
		if status != tc.status || ok != tc.ok {
			t.Errorf("%s: refusal = %d %v, want %d %v", tc.name, status, ok, tc.status, tc.ok)
		}
		if tc.ok && f.Errors[tc.field] == "" {
			t.Errorf("%s: errors %v, want a message for %q", tc.name, f.Errors, tc.field)
		}
	}
}

// TestPagesParse: the desk's pages parse with the layout.
func TestPagesParse(t *testing.T) {
	t.Parallel()
	p, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"jobs", "jobnew", "job"} {
		if p[name] == nil {
			t.Errorf("page %s is missing", name)
		}
	}
}
