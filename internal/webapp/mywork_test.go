package webapp

import (
	"errors"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestWorkRefusal: each refusal a technician's start or complete meets is
// said in their words, naming the bay and the job in it, never by id.
func TestWorkRefusal(t *testing.T) {
	t.Parallel()
	wip, bay := &workshop.Validation{}, &workshop.Validation{}
	wip.AddCode("techIds", "wip_limit_exceeded", "Jonas Weber already has 1 step in progress; their limit is 1.")
	bay.AddCode("bayId", "bay_occupied", "Lift 1 holds another job's vehicle: RO-2026-0004 has a step in progress there.")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"WIP limit", wip.Err(), "limit of steps in progress"},
		{"bay occupied", bay.Err(), "Lift 1 holds another job's vehicle: RO-2026-0004"},
		{"someone else changed it", workshop.Errorf(workshop.CodeStaleUpdatedAt, "stale"), "someone else changed it"},
		{"day close", workshop.Errorf(workshop.CodeDayCloseInProgress, "closing"), "day is being closed"},
		{"another refusal", errors.New("x"), "the form's own"},
	} {
		f := form{Values: map[string]string{}, Errors: map[string]string{"": "the form's own"}}
		if got := workRefusal(tc.err, f); !strings.Contains(got, tc.want) || strings.Contains(got, "Jonas Weber") {
			t.Errorf("%s: workRefusal = %q, want it to say %q without ids", tc.name, got, tc.want)
		}
	}
}
