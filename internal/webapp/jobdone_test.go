package webapp

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestJobDoneSays: each write's message, worded from the record as it is
// now: a reload after the step moved on claims nothing stale.
func TestJobDoneSays(t *testing.T) {
	t.Parallel()
	started := stepView{Label: "Brakes", Status: workshop.StepInProgress, TechNames: "Jonas", BayName: "Lift 1", Planned: "Thu 26 Nov 08:00 – 08:30"}
	pending := stepView{Label: "Brakes", Status: workshop.StepPending}
	job := workshop.Job{JobNumber: "RO-1", Status: workshop.JobDelivered}
	for _, tc := range []struct {
		name, got, want string
	}{
		{"started", jobDone{kind: doneStarted}.stepText(started), "Brakes started."},
		{"started, but pending again", jobDone{kind: doneStarted}.stepText(pending), ""},
		{"completed, not yet", jobDone{kind: doneCompleted}.stepText(started), ""},
		{"assigned", jobDone{kind: doneAssigned}.stepText(started), "Brakes assigned to Jonas in Lift 1."},
		{"unassigned", jobDone{kind: doneAssigned}.stepText(pending), "Brakes: nobody and no bay assigned."},
		{"accepted", jobDone{kind: doneAccepted}.stepText(started), "Plan accepted: Brakes assigned to Jonas in Lift 1, planned Thu 26 Nov 08:00 – 08:30."},
		{"delivered", jobDone{kind: doneDelivered}.jobText(job, nil), "RO-1 delivered."},
		{"cancelled, but delivered", jobDone{kind: doneCancelled}.jobText(job, nil), ""},
		{"accepted all", jobDone{kind: doneAcceptedAll}.jobText(job, []stepView{started, pending}), "Plan accepted for RO-1: Brakes assigned to Jonas in Lift 1."},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
