package webapp

import (
	"errors"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestWorkRefusal: each refusal a technician's start or complete meets is
// said in their words, not the store's ids.
func TestWorkRefusal(t *testing.T) {
	t.Parallel()
	wip, bay := &workshop.Validation{}, &workshop.Validation{}
	wip.AddCode("techIds", "wip_limit_exceeded", "Technician tec_x already has 1 step(s) in progress, their limit is 1.")
	bay.AddCode("bayId", "bay_occupied", "Bay bay_x holds another job's vehicle.")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"WIP limit", wip.Err(), "limit of steps in progress"},
		{"bay occupied", bay.Err(), "bay holds another job's vehicle"},
		{"someone else changed it", workshop.Errorf(workshop.CodeStaleUpdatedAt, "stale"), "someone else changed it"},
		{"day close", workshop.Errorf(workshop.CodeDayCloseInProgress, "closing"), "day is being closed"},
		{"another refusal", errors.New("x"), "the form's own"},
	} {
		f := form{Values: map[string]string{}, Errors: map[string]string{"": "the form's own"}}
		if got := workRefusal(tc.err, f); !strings.Contains(got, tc.want) || strings.Contains(got, "tec_x") {
			t.Errorf("%s: workRefusal = %q, want it to say %q without ids", tc.name, got, tc.want)
		}
	}
}
