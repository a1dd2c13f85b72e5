package operator_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// An edit of a location is checked by the rules a new one is made with.
func TestCheckLocationFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		in        operator.LocationFields
		want      operator.LocationFields
		badFields []string
	}{
		{"valid", operator.LocationFields{"North", "Europe/Lisbon", "GBP"}, operator.LocationFields{"North", "Europe/Lisbon", "GBP"}, nil},
		{"currency defaults", operator.LocationFields{"North", "UTC", ""}, operator.LocationFields{"North", "UTC", "EUR"}, nil},
		{"everything wrong", operator.LocationFields{"", "Mars/Base", "euro"}, operator.LocationFields{}, []string{"name", "timezone", "currency"}},
		{"Local is no zone", operator.LocationFields{"North", "Local", "EUR"}, operator.LocationFields{}, []string{"timezone"}},
	} {
		got, err := operator.CheckLocationFields(tc.in)
		var fields []string
		var e *workshop.Error
		if errors.As(err, &e) {
			for _, f := range e.Fields {
				fields = append(fields, f.Field)
			}
		}
		if got != tc.want || !slices.Equal(fields, tc.badFields) {
			t.Errorf("%s: CheckLocationFields = %+v, %v; want %+v, invalid %v", tc.name, got, err, tc.want, tc.badFields)
		}
	}
}
