package webapp

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// After every write the job's page says what happened, beside where it
// was made: the write redirects to the page with ?done=KIND (and
// &step=ID for a step's), and the page words it from the record as it is
// now, so that a reload never claims more than is true.

// Kinds of write the job's page confirms.
const (
	doneSaved       = "saved"
	doneStepAdded   = "step-added"
	doneAssigned    = "assigned"
	doneStarted     = "started"
	doneCompleted   = "completed"
	doneAccepted    = "accepted"
	doneAcceptedAll = "accepted-all"
	doneDelivered   = "delivered"
	doneCancelled   = "cancelled"
)

// jobDone is the write the page confirms.
type jobDone struct{ kind, stepID string }

func doneOf(r *http.Request) jobDone {
	q := r.URL.Query()
	return jobDone{kind: q.Get("done"), stepID: q.Get("step")}
}

// query is the write as a query string ("" for none).
func (d jobDone) query() string {
	if d.kind == "" {
		return ""
	}
	q := url.Values{"done": {d.kind}}
	if d.stepID != "" {
		q.Set("step", d.stepID)
	}
	return "?" + q.Encode()
}

// doneAddress is where a write of kind goes when it went through: back to
// the job's page, at the step or section it was made in.
func doneAddress(jobID, kind, stepID, anchor string) string {
	return jobPath(jobID) + jobDone{kind: kind, stepID: stepID}.query() + "#" + anchor
}

// stepText confirms a step's write.
func (d jobDone) stepText(sv stepView) string {
	switch {
	case d.kind == doneStarted && sv.Status != workshop.StepPending:
		return sv.Label + " started."
	case d.kind == doneCompleted && sv.Status == workshop.StepCompleted:
		return sv.Label + " completed."
	case d.kind == doneAssigned || d.kind == doneAccepted:
		var parts []string
		if sv.TechNames != "" {
			parts = append(parts, "to "+sv.TechNames)
		}
		if sv.BayName != "" {
			parts = append(parts, "in "+sv.BayName)
		}
		what := sv.Label + " assigned " + strings.Join(parts, " ")
		if len(parts) == 0 {
			what = sv.Label + ": nobody and no bay assigned"
		}
		if d.kind == doneAccepted {
			what = "Plan accepted: " + what
			if sv.Planned != "" {
				what += ", planned " + sv.Planned
			}
		}
		return what + "."
	}
	return ""
}

// workDoneText confirms a start or completion on a technician's list,
// when the step is still as it made it.
func (d *desk) workDoneText(done jobDone, st workshop.Step) string {
	switch {
	case done.kind == doneCompleted && st.Status == workshop.StepCompleted && st.CompletedAt != nil:
		return st.Label + " completed at " + clockText(st.CompletedAt.Time(), d.zone) + "."
	case done.kind == doneStarted && st.Status != workshop.StepPending && st.StartedAt != nil:
		return st.Label + " started at " + clockText(st.StartedAt.Time(), d.zone) + "."
	}
	return ""
}

// jobText confirms a write of the job, whose steps are shown as steps.
func (d jobDone) jobText(j workshop.Job, steps []stepView) string {
	switch {
	case d.kind == doneAcceptedAll:
		var each []string
		for _, sv := range steps {
			if sv.TechNames != "" || sv.BayName != "" {
				each = append(each, strings.TrimSuffix(jobDone{kind: doneAssigned}.stepText(sv), "."))
			}
		}
		return "Plan accepted for " + j.JobNumber + ": " + strings.Join(each, "; ") + "."
	case d.kind == doneSaved:
		return j.JobNumber + " saved."
	case d.kind == doneStepAdded:
		return "Step added to " + j.JobNumber + "."
	case d.kind == doneDelivered && j.Status == workshop.JobDelivered:
		return j.JobNumber + " delivered."
	case d.kind == doneCancelled && j.Status == workshop.JobCancelled:
		return j.JobNumber + " cancelled."
	}
	return ""
}
