package main

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// attendanceActions are the time clock's and the timesheets' actions. The
// technician user clocks the technician they work as; clocking another
// and correcting need attendance:write; every role reads timesheets.
var attendanceActions = []appAction{
	{name: "time clock", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/clock" }, allowed: everyRole},
	{name: "clock in self", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/clock/in" },
		form: func(m *matrixWorld) url.Values { return url.Values{"techId": {m.tech.ID}} }, allowed: everyRole},
	{name: "clock out self", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/clock/out" },
		form: func(m *matrixWorld) url.Values { return url.Values{"techId": {m.tech.ID}} }, allowed: everyRole},
	{name: "clock in another", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/clock/in" },
		form: func(m *matrixWorld) url.Values { return url.Values{"techId": {m.other.ID}} }, allowed: jobWriters},
	{name: "clock out another", method: "POST", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/clock/out" },
		form: func(m *matrixWorld) url.Values { return url.Values{"techId": {m.other.ID}} }, allowed: jobWriters},
	{name: "timesheet", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/timesheets?period=week" }, allowed: everyRole},
	{name: "timesheet CSV", method: "GET", path: func(m *matrixWorld) string { return "/locations/" + m.loc.ID + "/timesheets.csv" }, allowed: everyRole},
	{name: "attendance record", method: "GET", path: func(m *matrixWorld) string { return "/attendance/" + matrixRecord(m) }, allowed: everyRole},
	{name: "correct attendance", method: "POST", path: func(m *matrixWorld) string { return "/attendance/" + matrixRecord(m) + "/correct" },
		form: func(*matrixWorld) url.Values { return url.Values{"clockIn": {"2026-01-05T08:00"}} }, allowed: attendanceWriters},
}

var attendanceWriters = []workshop.Role{workshop.RoleOwner, workshop.RoleAdmin, workshop.RoleAdvisor}

func init() { appActions = append(appActions, attendanceActions...) }

// matrixRecords holds each matrix world's attendance record: a closed
// shift of a technician of its own, made on first use, so that the
// clock actions on the world's technicians do not move it.
var matrixRecords sync.Map // *matrixWorld -> record id

func matrixRecord(m *matrixWorld) string {
	if id, ok := matrixRecords.Load(m); ok {
		return id.(string)
	}
	t := m.w.t
	tech, err := m.w.op.CreateTechnician(context.Background(), operator.TechnicianRequest{LocationID: m.loc.ID, Name: "Record keeper", WIPLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	rec := shiftOf(t, m.w, m.org.ID, tech.ID, time.Now().Add(-5*time.Hour), time.Now().Add(-time.Hour))
	id, _ := matrixRecords.LoadOrStore(m, rec.ID)
	return id.(string)
}

// shiftOf clocks a technician in and out at the instants (out zero: left open).
func shiftOf(t *testing.T, w *testWorld, orgID, techID string, in, out time.Time) workshop.Attendance {
	t.Helper()
	v := store.Visibility{OrgID: orgID}
	a, err := w.st.ClockIn(context.Background(), v, techID, in)
	if err != nil {
		t.Fatalf("clock in: %v", err)
	}
	if out.IsZero() {
		return a
	}
	if a, err = w.st.ClockOut(context.Background(), v, techID, out); err != nil {
		t.Fatalf("clock out: %v", err)
	}
	return a
}

// clockEvents are the clock events of a technician in the outbox, in order.
func clockEvents(t *testing.T, w *testWorld, techID string) []string {
	t.Helper()
	evs, err := w.st.EventsAfter(context.Background(), 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ev := range evs {
		if strings.Contains(string(ev.Data), `"tech_id":"`+techID+`"`) {
			names = append(names, ev.Name)
		}
	}
	return names
}

// attendanceWorld is a Berlin location with an advisor, a technician user
// who works as Jonas, a technician user who works as nobody, and Aylin.
type attendanceWorld struct {
	w            *testWorld
	org          *testOrg
	loc          workshop.Location
	jonas, aylin workshop.Technician
}

func newAttendanceWorld(t *testing.T, db string) *attendanceWorld {
	t.Helper()
	w := newWorld(t, db)
	aw := &attendanceWorld{w: w, org: w.org("Clock Motors", "pro", 1)}
	aw.loc = aw.org.Locations[0] // Europe/Berlin
	appUser(t, w, aw.org.ID, "advisor@clock.example", workshop.RoleAdvisor, testPassword)
	jonasUser := appUser(t, w, aw.org.ID, "jonas@clock.example", workshop.RoleTechnician, testPassword)
	appUser(t, w, aw.org.ID, "apprentice@clock.example", workshop.RoleTechnician, testPassword)
	var err error
	ctx := context.Background()
	if aw.jonas, err = w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: aw.loc.ID, Name: "Jonas Weber", WIPLimit: 2,
		UserID: jonasUser.ID}); err != nil {
		t.Fatal(err)
	}
	if aw.aylin, err = w.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: aw.loc.ID, Name: "=HYPERLINK(\"x\") Aylin",
		WIPLimit: 2}); err != nil {
		t.Fatal(err)
	}
	return aw
}

func (aw *attendanceWorld) clockPath() string { return "/locations/" + aw.loc.ID + "/clock" }

func TestAppTimeClock(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		aw := newAttendanceWorld(t, db.URL)
		srv := startServer(t, db.URL)
		clock := aw.clockPath()

		t.Run("a technician clocks themself in and out", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.login("jonas@clock.example", testPassword, "")
			b.get(clock).want(t, "the clock", http.StatusOK, "", "<h1>Time clock</h1>", "Jonas Weber", "clocked out", `action="`+clock+`/in"`)
			p := b.post(clock+"/in", url.Values{"techId": {aw.jonas.ID}})
			p.want(t, "clock in", http.StatusSeeOther, "")
			if !strings.HasPrefix(p.location, clock+"?") {
				t.Fatalf("clock in went to %q, want back to the clock", p.location)
			}
			b.get(p.location).want(t, "after clocking in", http.StatusOK, "", "Jonas Weber clocked in at", "clocked in</strong> since",
				`action="`+clock+`/out"`)
			b.post(clock+"/in", url.Values{"techId": {aw.jonas.ID}}).want(t, "a second clock-in", http.StatusConflict, "", "already clocked in")
			p = b.post(clock+"/out", url.Values{"techId": {aw.jonas.ID}})
			p.want(t, "clock out", http.StatusSeeOther, "")
			b.get(p.location).want(t, "after clocking out", http.StatusOK, "", "Jonas Weber clocked out.", `action="`+clock+`/in"`,
				`Worked today: <strong id="worked-today">0:00</strong>.`)
			if got, want := clockEvents(t, aw.w, aw.jonas.ID), []string{workshop.EventTechClockedIn, workshop.EventTechClockedOut}; !slices.Equal(got, want) {
				t.Errorf("events of Jonas %v, want %v (as the API emits them)", got, want)
			}
		})

		t.Run("a technician may not clock another", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.login("jonas@clock.example", testPassword, "")
			b.get(clock).wantNot(t, "the clock of a technician", "=HYPERLINK", aw.aylin.ID)
			b.post(clock+"/in", url.Values{"techId": {aw.aylin.ID}}).want(t, "clock in Aylin", http.StatusForbidden, "", "Refused")
			if tec, _ := aw.w.st.Technician(context.Background(), store.Visibility{OrgID: aw.org.ID}, aw.aylin.ID); tec.ClockedIn {
				t.Errorf("Aylin was clocked in by a refused request")
			}
		})

		t.Run("a technician who works as nobody is told so", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.login("apprentice@clock.example", testPassword, "")
			p := b.get(clock)
			p.want(t, "the clock", http.StatusOK, "", "does not work as a technician")
			p.wantNot(t, "the clock", "Clock in")
		})

		t.Run("an advisor clocks anyone", func(t *testing.T) {
			b := newBrowser(t, srv.URL)
			b.login("advisor@clock.example", testPassword, "")
			b.get(clock).want(t, "the clock", http.StatusOK, "", "Jonas Weber", "=HYPERLINK(&#34;x&#34;) Aylin", "Out")
			b.post(clock+"/in", url.Values{"techId": {aw.aylin.ID}}).want(t, "clock in Aylin", http.StatusSeeOther, "")
			b.get(clock).want(t, "Aylin in", http.StatusOK, "", "In since")
			b.post(clock+"/out", url.Values{"techId": {aw.aylin.ID}}).want(t, "clock out Aylin", http.StatusSeeOther, "")
			b.post(clock+"/out", url.Values{"techId": {aw.aylin.ID}}).want(t, "clock out again", http.StatusConflict, "", "=HYPERLINK(&#34;x&#34;) Aylin is not clocked in.")
			b.post(clock+"/in", url.Values{"techId": {"tec_nope"}}).want(t, "an unknown technician", http.StatusNotFound, "")
			if got, want := clockEvents(t, aw.w, aw.aylin.ID), []string{workshop.EventTechClockedIn, workshop.EventTechClockedOut}; !slices.Equal(got, want) {
				t.Errorf("events of Aylin %v, want %v", got, want)
			}
		})

		t.Run("a refused clock-out is told on the clock", func(t *testing.T) {
			// clocked in through the API a few minutes ahead (its skew allows it): out now is before in
			shiftOf(t, aw.w, aw.org.ID, aw.aylin.ID, time.Now().Add(3*time.Minute), time.Time{})
			b := newBrowser(t, srv.URL)
			b.login("advisor@clock.example", testPassword, "")
			b.post(clock+"/out", url.Values{"techId": {aw.aylin.ID}}).want(t, "clock out", http.StatusUnprocessableEntity, "",
				`role="alert"`, "before the clock-in")
		})
	})
}

func TestAppAttendanceCorrection(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		aw := newAttendanceWorld(t, db.URL)
		srv := startServer(t, db.URL)
		zone, err := time.LoadLocation("Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		local := func(s string) time.Time {
			v, err := time.ParseInLocation("2006-01-02T15:04", s, zone)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		rec := shiftOf(t, aw.w, aw.org.ID, aw.jonas.ID, local("2026-11-16T08:00"), local("2026-11-16T12:00"))
		shiftOf(t, aw.w, aw.org.ID, aw.jonas.ID, local("2026-11-16T13:00"), local("2026-11-16T17:00"))
		page := "/attendance/" + rec.ID
		b := newBrowser(t, srv.URL)
		b.login("advisor@clock.example", testPassword, "")
		b.get(page).want(t, "the record", http.StatusOK, "", "Attendance of Jonas Weber", `value="2026-11-16T08:00"`, `value="2026-11-16T12:00"`,
			"Never corrected", "4:00")
		version := versionString(rec.UpdatedAt)

		for _, tc := range []struct {
			name, in, out, field, message string
		}{
			{"a clock-out before the clock-in", "2026-11-16T08:00", "2026-11-16T07:00", "clockOut", "before the clock-in"},
			{"a time in the future", "2099-01-01T08:00", "2099-01-01T09:00", "clockIn", "cannot be in the future"},
			{"an overlap with the afternoon", "2026-11-16T08:00", "2026-11-16T13:30", "clockOut", "overlaps"},
			{"no clock-in", "", "2026-11-16T12:00", "clockIn", "Enter the clock-in"},
			{"a clock-out reopened", "2026-11-16T08:00", "", "clockOut", "cannot be reopened"},
			{"a time the clocks skip", "2026-03-29T02:30", "2026-03-29T04:00", "clockIn", "clocks skip"},
		} {
			p := b.post(page+"/correct", url.Values{"clockIn": {tc.in}, "clockOut": {tc.out}, "updatedAt": {version}})
			p.want(t, tc.name, http.StatusUnprocessableEntity, "", `id="`+tc.field+`-error"`, tc.message)
		}

		b.post(page+"/correct", url.Values{"clockIn": {"2026-11-16T07:30"}, "clockOut": {"2026-11-16T12:00"}, "updatedAt": {version}}).
			want(t, "a correction", http.StatusSeeOther, page+"?corrected=1")
		b.get(page+"?corrected=1").want(t, "the corrected record", http.StatusOK, "", "The record is corrected.", "4:30",
			"advisor@clock.example", "Mon 16 Nov 08:00 – Mon 16 Nov 12:00", "Mon 16 Nov 07:30 – Mon 16 Nov 12:00")

		// A second advisor's form, made from the first version, is stale now.
		p := b.post(page+"/correct", url.Values{"clockIn": {"2026-11-16T09:00"}, "clockOut": {"2026-11-16T12:00"}, "updatedAt": {version}})
		p.want(t, "a stale correction", http.StatusConflict, "", "Someone else changed this", `value="2026-11-16T07:30"`)
		p.wantNot(t, "a stale correction", `value="2026-11-16T09:00"`)
		cur, err := aw.w.st.AttendanceRecord(context.Background(), store.Visibility{OrgID: aw.org.ID}, rec.ID)
		if err != nil || !cur.ClockIn.Equal(local("2026-11-16T07:30")) {
			t.Errorf("after the stale form the record is %v (%v), want the first correction's 07:30", cur.ClockIn, err)
		}
		if got := clockEvents(t, aw.w, aw.jonas.ID); len(got) != 4 {
			t.Errorf("events of Jonas %v, want only the two shifts' clock-ins and outs: a correction emits nothing", got)
		}

		tech := newBrowser(t, srv.URL)
		tech.login("jonas@clock.example", testPassword, "")
		p = tech.get(page)
		p.want(t, "the record for a technician", http.StatusOK, "", "07:30")
		p.wantNot(t, "the record for a technician", "Save the correction")
		tech.post(page+"/correct", url.Values{"clockIn": {"2026-11-16T06:00"}, "clockOut": {"2026-11-16T12:00"}, "updatedAt": {versionString(cur.UpdatedAt)}}).
			want(t, "a technician's correction", http.StatusForbidden, "")

		other := newWorld(t, db.URL).org("Other Motors", "pro", 1)
		appUser(t, aw.w, other.ID, "advisor@other.example", workshop.RoleAdvisor, testPassword)
		outsider := newBrowser(t, srv.URL)
		outsider.login("advisor@other.example", testPassword, "")
		outsider.get(page).want(t, "another organisation's record", http.StatusNotFound, "")
		b.get("/attendance/att_nope").want(t, "an unknown record", http.StatusNotFound, "", "Not found")
		b.post("/attendance/att_nope/correct", url.Values{"clockIn": {"2026-11-16T07:00"}}).want(t, "correcting an unknown record", http.StatusNotFound, "")
	})
}

// versionString is a record's version as its forms carry it.
func versionString(m workshop.Micros) string { return strconv.FormatInt(int64(m), 10) }

func TestAppTimesheets(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		aw := newAttendanceWorld(t, db.URL)
		srv := startServer(t, db.URL)
		zone, err := time.LoadLocation("Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		local := func(s string) time.Time {
			v, err := time.ParseInLocation("2006-01-02T15:04", s, zone)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		// The night the clocks go back: 00:30 to 04:30 is 5 hours.
		shiftOf(t, aw.w, aw.org.ID, aw.jonas.ID, local("2026-10-25T00:30"), local("2026-10-25T04:30"))
		shiftOf(t, aw.w, aw.org.ID, aw.jonas.ID, local("2026-10-20T08:00"), local("2026-10-20T16:15"))
		shiftOf(t, aw.w, aw.org.ID, aw.aylin.ID, local("2026-10-19T07:00"), local("2026-10-19T08:30"))
		// The week after, not in the week asked for.
		shiftOf(t, aw.w, aw.org.ID, aw.aylin.ID, local("2026-10-26T07:00"), local("2026-10-26T08:00"))
		// The night the clocks go forward: 00:30 to 04:30 is 3 hours.
		shiftOf(t, aw.w, aw.org.ID, aw.aylin.ID, local("2026-03-29T00:30"), local("2026-03-29T04:30"))
		sheets := "/locations/" + aw.loc.ID + "/timesheets"
		b := newBrowser(t, srv.URL)
		b.login("jonas@clock.example", testPassword, "") // a technician reads timesheets (attendance:read)

		t.Run("a day across the clocks going back", func(t *testing.T) {
			p := b.get(sheets + "?period=day&date=2026-10-25")
			p.want(t, "the day", http.StatusOK, "", "Timesheet of Sun 25 Oct 2026", "00:30 CEST", "04:30 CET", `id="location-total">5:00<`,
				"date=2026-10-24&amp;period=day", "date=2026-10-26&amp;period=day")
		})
		t.Run("a day across the clocks going forward", func(t *testing.T) {
			b.get(sheets+"?period=day&date=2026-03-29").want(t, "the day", http.StatusOK, "", "00:30 CET", "04:30 CEST", `id="location-total">3:00<`)
		})
		t.Run("a week, Monday to Sunday", func(t *testing.T) {
			p := b.get(sheets + "?period=week&date=2026-10-22")
			p.want(t, "the week", http.StatusOK, "", "Timesheet of week 43, Mon 19 Oct – Sun 25 Oct 2026", `<td class="num total">13:15</td>`,
				`<td class="num total">1:30</td>`, `id="location-total">14:45<`, "date=2026-10-12&amp;period=week", "date=2026-10-26&amp;period=week",
				`href="/locations/`+aw.loc.ID+`/timesheets.csv?date=2026-10-19&amp;period=week" download hx-boost="false"`)
		})
		t.Run("one technician's week", func(t *testing.T) {
			p := b.get(sheets + "?period=week&date=2026-10-22&techId=" + aw.aylin.ID)
			p.want(t, "Aylin's week", http.StatusOK, "", `id="location-total">1:30<`)
			p.wantNot(t, "Aylin's week", "Jonas Weber</th>")
		})
		t.Run("an open record counts up to now", func(t *testing.T) {
			open := shiftOf(t, aw.w, aw.org.ID, aw.aylin.ID, time.Now().Add(-90*time.Minute), time.Time{})
			p := b.get(sheets + "?period=day&date=" + open.WorkDate + "&techId=" + aw.aylin.ID)
			p.want(t, "today", http.StatusOK, "", "Records still open count up to now", "still clocked in")
			if !regexp.MustCompile(`id="location-total">1:(29|30|31)<`).MatchString(p.body) {
				t.Errorf("today's total is not the 1:30 so far; body %.2000s", p.body)
			}
		})
		t.Run("a wrong query", func(t *testing.T) {
			b.get(sheets+"?period=month&date=2026-10-22").want(t, "a month", http.StatusBadRequest, "", `id="period-error"`)
			b.get(sheets+"?date=22.10.2026").want(t, "a bad date", http.StatusBadRequest, "", `id="date-error"`)
			b.get(sheets+"?techId=tec_nope").want(t, "an unknown technician", http.StatusBadRequest, "", `id="techId-error"`)
		})

		t.Run("CSV", func(t *testing.T) {
			p := b.get(sheets + ".csv?period=week&date=2026-10-22")
			p.want(t, "the CSV", http.StatusOK, "")
			if cd := p.header.Get("Content-Disposition"); cd != `attachment; filename="timesheet-2026-10-19-2026-10-25.csv"` {
				t.Errorf("Content-Disposition %q", cd)
			}
			if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
				t.Errorf("Content-Type %q", ct)
			}
			rows, err := csv.NewReader(strings.NewReader(p.body)).ReadAll()
			if err != nil {
				t.Fatalf("the CSV does not parse: %v\n%s", err, p.body)
			}
			aylin := `'=HYPERLINK("x") Aylin`
			want := [][]string{
				{"technician", "date", "clock in", "clock out", "minutes"},
				{"Jonas Weber", "2026-10-20", "2026-10-20T08:00:00+02:00", "2026-10-20T16:15:00+02:00", "495"},
				{"Jonas Weber", "2026-10-25", "2026-10-25T00:30:00+02:00", "2026-10-25T04:30:00+01:00", "300"},
				{aylin, "2026-10-19", "2026-10-19T07:00:00+02:00", "2026-10-19T08:30:00+02:00", "90"},
				{"Jonas Weber", "total", "", "", "795"},
				{aylin, "total", "", "", "90"},
				{"all technicians", "2026-10-19", "", "", "90"},
				{"all technicians", "2026-10-20", "", "", "495"},
				{"all technicians", "2026-10-21", "", "", "0"},
				{"all technicians", "2026-10-22", "", "", "0"},
				{"all technicians", "2026-10-23", "", "", "0"},
				{"all technicians", "2026-10-24", "", "", "0"},
				{"all technicians", "2026-10-25", "", "", "300"},
				{"all technicians", "total", "", "", "885"},
			}
			if !slices.EqualFunc(rows, want, slices.Equal) {
				t.Errorf("CSV rows:\n%q\nwant\n%q", rows, want)
			}
		})
	})
}
