package workshop

import (
	"strings"
	"testing"
)

// The field rules of jobs and steps answer every front door the same way:
// each case names the field refused ("" for none).
func TestFieldRules(t *testing.T) {
	t.Parallel()
	long := func(n int) *string { s := strings.Repeat("é", n); return &s }
	item := &CatalogItem{ServiceCode: "OIL", Name: "Oil change", EstimatedDuration: 45, IsActive: true}
	oil := "OIL"
	for _, tc := range []struct {
		name  string
		check func() error
		field string
	}{
		{"a job without a number gets one", func() error { return CheckJob(Job{}) }, ""},
		{"a blank number", func() error { return CheckJob(Job{JobNumber: "  "}) }, "jobNumber"},
		{"a number of 255 characters", func() error { return CheckJob(Job{JobNumber: *long(255)}) }, ""},
		{"a number of 256 characters", func() error { return CheckJob(Job{JobNumber: *long(256)}) }, "jobNumber"},
		{"a plate of 256 characters", func() error { return CheckJob(Job{VehiclePlate: long(256)}) }, "vehiclePlate"},
		{"a model of 256 characters", func() error { return CheckJob(Job{VehicleModel: long(256)}) }, "vehicleModel"},
		{"an external key of 256 characters", func() error { return CheckJob(Job{ExternalKey: long(256)}) }, "externalKey"},
		{"a patch to a blank number", func() error { n := ""; return checkJobPatch(Job{}, JobPatch{JobNumber: &n}) }, "jobNumber"},
		{"a patch to a long make", func() error {
			m := long(256)
			return checkJobPatch(Job{VehicleMake: m}, JobPatch{VehicleMake: &m})
		}, "vehicleMake"},
		{"a patch leaving a field alone", func() error { return checkJobPatch(Job{VehicleMake: long(256)}, JobPatch{}) }, ""},
		{"a free-text step", func() error { _, err := CompleteStep(Step{Label: "Brakes", EstimatedDuration: 60}, nil); return err }, ""},
		{"a step of neither label nor service", func() error { _, err := CompleteStep(Step{EstimatedDuration: 60}, nil); return err }, "label"},
		{"a step label of 201 characters", func() error {
			_, err := CompleteStep(Step{Label: *long(201), EstimatedDuration: 60}, nil)
			return err
		}, "label"},
		{"an estimate of a week and a minute", func() error {
			_, err := CompleteStep(Step{Label: "Engine", EstimatedDuration: MaxDuration + 1}, nil)
			return err
		}, "estimatedDuration"},
		{"a negative estimate", func() error { _, err := CompleteStep(Step{Label: "Engine", EstimatedDuration: -5}, nil); return err }, "estimatedDuration"},
		{"a catalog step", func() error { _, err := CompleteStep(Step{ServiceCode: &oil}, item); return err }, ""},
		{"a name of 256 characters", func() error { return CheckName("name", *long(256)) }, "name"},
		{"a blank name", func() error { return CheckName("name", " ") }, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check()
			var got string
			if e, ok := err.(*Error); ok {
				got = e.Field
			} else if err != nil {
				t.Fatalf("got %v (%T), want a *Error", err, err)
			}
			if got != tc.field {
				t.Errorf("refused field: got %q (%v), want %q", got, err, tc.field)
			}
		})
	}
}
