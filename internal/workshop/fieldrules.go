package workshop

import (
	"strings"
	"unicode/utf8"
)

// The field rules of jobs and steps, the one validator of every front door
// (the API, the application and `workshop admin`): the store's write path
// applies them through Opened jobs (CheckJob), CompleteStep and the patch
// rules (ChangeJob, ChangeStep), so each front door gets the same rule and
// the same message. The API's document states the same bounds, so its
// request validation answers first there in the same words. A front door's
// own form rules (the application's new job needs a vehicle and a step)
// stay with that front door.
const (
	MaxJobTextLength   = 255 // a job's number, external key, plate, make and model
	MaxStepLabelLength = 200
)

// CheckJob checks a new job's own fields: a number, when it has one, that
// is not blank (a caller who sends none gets one assigned) and the lengths
// of its texts.
func CheckJob(j Job) error {
	var v Validation
	checkJobFields(&v, j)
	return v.Err()
}

func checkJobFields(v *Validation, j Job) {
	if j.JobNumber != "" { // "": the store assigns one
		checkJobNumber(v, j.JobNumber)
	}
	for _, f := range []struct {
		name  string
		value *string
	}{{"externalKey", j.ExternalKey}, {"vehiclePlate", j.VehiclePlate}, {"vehicleMake", j.VehicleMake}, {"vehicleModel", j.VehicleModel}} {
		checkOptionalLength(v, f.name, f.value)
	}
}

// checkJobPatch checks the fields a patch sets, as they leave the job.
func checkJobPatch(next Job, p JobPatch) error {
	var v Validation
	if p.JobNumber != nil {
		checkJobNumber(&v, next.JobNumber)
	}
	for _, f := range []struct {
		name  string
		set   bool
		value *string
	}{{"vehiclePlate", p.VehiclePlate != nil, next.VehiclePlate}, {"vehicleMake", p.VehicleMake != nil, next.VehicleMake},
		{"vehicleModel", p.VehicleModel != nil, next.VehicleModel}} {
		if f.set {
			checkOptionalLength(&v, f.name, f.value)
		}
	}
	return v.Err()
}

func checkJobNumber(v *Validation, n string) {
	if err := CheckJobNumber(n); err != nil {
		_ = v.Check(err)
		return
	}
	checkLength(v, "jobNumber", n, MaxJobTextLength)
}

func checkOptionalLength(v *Validation, field string, s *string) {
	if s != nil {
		checkLength(v, field, *s, MaxJobTextLength)
	}
}

// checkStepFields checks a step's label length and estimate range.
func checkStepFields(v *Validation, st Step) {
	checkLength(v, "label", st.Label, MaxStepLabelLength)
	checkEstimate(v, st.EstimatedDuration)
}

func checkEstimate(v *Validation, minutes int) {
	if minutes < 1 || minutes > MaxDuration {
		v.Add("estimatedDuration", "estimatedDuration must be between 1 and %d.", MaxDuration)
	}
}

func checkLength(v *Validation, field, s string, max int) {
	if utf8.RuneCountInString(s) > max {
		v.Add(field, "%s is too long: at most %d characters.", field, max)
	}
}

// CheckName checks a name of a record (an organisation, a user, a
// technician, a bay, a catalog item): 1 to MaxNameLength characters.
func CheckName(field, name string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(name)); n == 0 || n > MaxNameLength {
		return Invalid(field, "Give a name of 1 to %d characters.", MaxNameLength)
	}
	return nil
}
