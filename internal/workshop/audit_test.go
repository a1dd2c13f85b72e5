package workshop_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

func TestAppendAuditIsAppendFormats(t *testing.T) {
	t.Parallel()
	check := func(m workshop.Micros) {
		t.Helper()
		want := m.Time().Format(workshop.AuditLayout)
		if got := string(m.AppendAudit(nil)); got != want {
			t.Fatalf("Micros(%d).AppendAudit = %s, want %s", int64(m), got, want)
		}
	}
	for _, at := range []time.Time{
		time.Unix(0, 0), time.Unix(-1, 0), time.Unix(0, -1000), time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC),
		time.Date(2000, 2, 29, 12, 0, 0, 1000, time.UTC), time.Date(2100, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
		time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		check(workshop.MicrosOf(at))
	}
	r := rand.New(rand.NewPCG(1, 2))
	span := workshop.MicrosOf(time.Date(10100, 1, 1, 0, 0, 0, 0, time.UTC))
	for range 200_000 {
		check(workshop.Micros(r.Int64N(int64(span)*2) - int64(span)))
	}
}
