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
	checkCustomer(v, j, true, true, true)
}

// MaxCustomerPhoneLength bounds a customer's phone number.
const MaxCustomerPhoneLength = 32

// PhoneSeparators are the characters a phone number may hold besides its
// digits. The job search removes them from a phone and from a term
// (store.phoneKey, migration 00041 of both databases).
const PhoneSeparators = " +()-./"

// checkCustomer checks the customer fields that are set: a name's length,
// a phone of digits, spaces and +()-./, and an email address.
func checkCustomer(v *Validation, j Job, name, phone, email bool) {
	if name {
		checkOptionalLength(v, "customerName", j.CustomerName)
	}
	if p := j.CustomerPhone; phone && p != nil {
		if !ValidPhone(*p) {
			v.Add("customerPhone", "A phone number is at most %d characters of digits, spaces and + ( ) - . /, with a digit.", MaxCustomerPhoneLength)
		}
	}
	if e := j.CustomerEmail; email && e != nil {
		if !ValidEmail(*e) {
			v.Add("customerEmail", "%q is not an email address (name@example.com).", *e)
		}
	}
}

// ValidPhone tells whether s may be a customer's phone number.
func ValidPhone(s string) bool {
	digit := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case !strings.ContainsRune(PhoneSeparators, r):
			return false
		}
	}
	return digit && len(s) <= MaxCustomerPhoneLength
}

// ValidEmail tells whether s is an email address: one @ with something
// before it and a dotted domain after it, no spaces, at most 255
// characters.
func ValidEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && len(s) <= MaxJobTextLength && !strings.ContainsAny(s, " \t\r\n<>,;\"") &&
		!strings.Contains(domain, "@") && strings.Contains(strings.Trim(domain, "."), ".") && !strings.Contains(domain, "..")
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
	checkCustomer(&v, next, p.CustomerName != nil, p.CustomerPhone != nil, p.CustomerEmail != nil)
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
