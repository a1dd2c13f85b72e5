package workshop

import (
	"errors"
	"testing"
	"time"
)

// A clock-out is refused before the clock-in, except one given to the
// minute (a form's field) in the clock-in's own minute, which is the
// clock-in.
func TestClockOut(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("CET", 3600)
	in := time.Date(2026, 11, 25, 17, 45, 20, 0, zone)
	open := Attendance{ID: "att_1", ClockIn: OffsetTime{Time: in}, UpdatedAt: MicrosOf(in)}
	now := MicrosOf(in.Add(time.Hour))
	at := func(h, m, s int) OffsetTime { return OffsetTime{Time: time.Date(2026, 11, 25, h, m, s, 0, zone)} }
	for _, c := range []struct {
		name    string
		out     OffsetTime
		unit    time.Duration
		want    time.Time
		refused bool // on "at"
	}{
		{name: "after the clock-in", out: at(18, 30, 0), want: at(18, 30, 0).Time},
		{name: "exact, in the clock-in's minute but before it", out: at(17, 45, 0), refused: true},
		{name: "to the minute of the clock-in", out: at(17, 45, 0), unit: time.Minute, want: in},
		{name: "to the minute before the clock-in's", out: at(17, 44, 0), unit: time.Minute, refused: true},
		{name: "to the minute after the clock-in's", out: at(17, 46, 0), unit: time.Minute, want: at(17, 46, 0).Time},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ClockOut(open, c.out, c.unit, now)
			var e *Error
			if c.refused {
				if !errors.As(err, &e) || e.Code != CodeValidationFailed || e.Field != "at" {
					t.Fatalf("ClockOut = %v, want validation_failed on at", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ClockOut = %v, want it accepted", err)
			}
			if got.ClockOut == nil || !got.ClockOut.Equal(c.want) || got.ClockOut.Location() != zone {
				t.Errorf("clock-out = %v, want %v in the location's zone", got.ClockOut, c.want)
			}
		})
	}
}
