package webapp

import (
	"context"
	"html/template"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The dispatch timeline as the template draws it: one day of the plan on
// a time axis in the location's zone, a row per technician (or per bay),
// each planned step a bar placed in percent of the axis, so that the page
// reads without JavaScript; dispatch.js only adds moving by hand.

// timelineView is the dispatch page's body.
type timelineView struct {
	Date, Prev, Next, Today string
	DateLabel               string // Thursday 26 November 2026
	ByBay                   bool   // rows are bays, not technicians
	// AxisFrom and AxisSpan are the axis: its start in minutes after the
	// local midnight of Date, and its length in minutes (dispatch.js turns
	// a drop's position back into a time with them).
	AxisFrom, AxisSpan int
	Ticks              []tick
	Shades             []span // the time out of working hours and the breaks
	Now                *float64
	Rows               []timelineRow
	Tray               []trayStep
	AtRisk             []riskJob
	Proposed           int // steps the plan assigned and nobody accepted yet
	DayProposed        int // of them, those that start on Date
	Proposals          []proposalDay
	Totals             workshop.DispatchTotals
	// Zoom is the zoom shown (zoomDay, zoomHalf, zoomTwoHours), Scale the
	// track's width against the day's (1 for the day), Hours the axis in
	// hours: the page's style sizes the track from them.
	Zoom  string
	Scale float64
	Hours int
	Zooms []zoomLink
}

type tick struct {
	Left  float64
	Label string
}

type span struct {
	Left, Width float64
	Label       string
	Short       string // what the shade shows: why ("training", "maintenance: lift inspection")
}

// timelineRow is one technician's or bay's row. Off says why nothing can
// be put in it ("unavailable", "maintenance").
type timelineRow struct {
	ID, Name, Off string
	Bars          []bar
	Lanes         int    // the bars' lanes: overlapping bars each have one
	Hours         string // planned hours against working hours that day: "5:30 of 9:00"
	Busy          bool   // planned above 90 % of the working time
	Away          string // "away: vacation until Tue"
	Shades        []span // absences, maintenance windows: who or what and why
}

// bar is a planned step in a row.
type bar struct {
	StepID, JobID string
	Text          string // job number · step label · plate
	Short         string // job number · plate: what the bar shows first
	Label         string // the step's label
	Since, Until  string // a clipped bar's real start or end in words: "since Fri 16:10"
	Beside        bool   // too short for its text at this zoom: the text is drawn beside it
	BesideLeft    bool   // beside it before it (no room after it)
	Lane          int
	Style         template.CSS // its place: left, width and lane
	Start         int          // its real start in minutes after the local midnight of the day shown (dispatch.js)
	ClipStart     bool
	ClipEnd       bool
	from, to      float64 // drawn, in minutes from the axis start
	reach         float64 // where its text ends, in minutes from the axis start
	Name          string  // Text with the time, the other row and the state: tooltip and accessible name
	State, Mark   string  // in-progress, scheduled, assigned or proposed; its text mark
	AtRisk        bool
	Shared        bool // one of several technicians' rows
	Left, Width   float64
	TechIDs       string
	BayID         string
	UpdatedAt     string
	Movable       bool // pending: a person may move it
}

// trayStep is a step the plan cannot place.
type trayStep struct {
	StepID, JobID, Text, Reason, UpdatedAt, TechIDs, BayID string
	BlockedBy, BlockedByText                               string // the unplaceable step it waits for
}

// riskJob is a job the plan finishes after its promise, or cannot finish.
type riskJob struct {
	JobID, Text, Promise, Projected string
}

// barStates are the marks of a bar's state: colour is never the only sign.
var barStates = map[string]struct{ mark, words string }{
	"in-progress": {"▶", "in progress"},
	"scheduled":   {"◆", "scheduled by a person"},
	"assigned":    {"■", "assigned by a person, timed by the planner"},
	"proposed":    {"○", "proposed by the planner"},
}

// timelineData is what the view needs of the location beside the plan:
// the names and the steps' records.
type timelineData struct {
	jobs  map[string]workshop.Job
	steps map[string]workshop.Step
	techs map[string]workshop.Technician
	bays  map[string]workshop.Bay
	data  store.PlanData
}

// timelineCache keeps each location's timelineData of the last plan
// version read: a dispatch page, and every push of its stream, drawn
// while nothing changed reads no records (as the plan it draws is kept).
type timelineCache struct {
	mu   sync.Mutex
	kept map[string]timelineData // by location
}

// of is the location's timelineData at least as new as version.
func (c *timelineCache) of(ctx context.Context, st *store.Store, locationID string, version int64) (timelineData, error) {
	c.mu.Lock()
	td, ok := c.kept[locationID]
	c.mu.Unlock()
	if ok && td.data.Version >= version {
		return td, nil
	}
	data, err := st.PlanData(ctx, locationID)
	if err != nil {
		return timelineData{}, err
	}
	td = timelineDataOf(data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil {
		c.kept = map[string]timelineData{}
	}
	if old, ok := c.kept[locationID]; !ok || old.data.Version <= data.Version {
		c.kept[locationID] = td
	}
	return td, nil
}

func timelineDataOf(data store.PlanData) timelineData {
	td := timelineData{jobs: map[string]workshop.Job{}, steps: map[string]workshop.Step{},
		techs: map[string]workshop.Technician{}, bays: map[string]workshop.Bay{}, data: data}
	for _, j := range data.Jobs {
		td.jobs[j.ID] = j
		for _, st := range j.Steps {
			td.steps[st.ID] = st
		}
	}
	for _, t := range data.Techs {
		td.techs[t.ID] = t
	}
	for _, b := range data.Bays {
		td.bays[b.ID] = b
	}
	return td
}

// stepText is how a step is named everywhere on the page.
func (td timelineData) stepText(stepID string) string {
	st := td.steps[stepID]
	j := td.jobs[st.JobID]
	parts := []string{j.JobNumber, st.Label}
	if p := deref(j.VehiclePlate); p != "" {
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

func (td timelineData) techNames(ids []string) string {
	names := make([]string, 0, len(ids))
	for _, id := range ids {
		names = append(names, td.techs[id].Name)
	}
	return strings.Join(names, ", ")
}

// dayTimeline draws a date of the plan, rows by technician or by bay, at
// a zoom (zoomDay, zoomHalf, zoomTwoHours).
func (d *desk) dayTimeline(p *planning.Plan, date string, td timelineData, byBay bool, zoom string, now time.Time) timelineView {
	day, _ := time.ParseInLocation(time.DateOnly, date, d.zone)
	v := timelineView{Date: date, ByBay: byBay, Totals: p.Dispatch.Totals,
		Prev: day.AddDate(0, 0, -1).Format(time.DateOnly), Next: day.AddDate(0, 0, 1).Format(time.DateOnly),
		Today: now.In(d.zone).Format(time.DateOnly), DateLabel: day.Format("Monday 2 January 2006")}
	from, to := d.window(p, day)
	from, to = from.Truncate(time.Hour), to.Add(time.Hour-time.Nanosecond).Truncate(time.Hour) // whole hours: tidy ticks
	total := to.Sub(from)
	v.AxisFrom, v.AxisSpan = int(from.Sub(day).Minutes()), int(total.Minutes())
	v.Zoom, v.Scale = zoomOf(zoom, v.AxisSpan)
	v.Hours = v.AxisSpan / 60
	at := func(t time.Time) float64 { return math.Round(10000*t.Sub(from).Seconds()/total.Seconds()) / 100 }
	tickEvery := time.Hour
	if v.Zoom == zoomTwoHours {
		tickEvery = 30 * time.Minute
	}
	for t := from; !t.After(to); t = t.Add(tickEvery) {
		v.Ticks = append(v.Ticks, tick{Left: at(t), Label: clockText(t, d.zone)})
	}
	for _, s := range offHours(p.Settings, day, from, to) {
		v.Shades = append(v.Shades, span{Left: at(s.from), Width: at(s.to) - at(s.from),
			Label: s.why + " " + clockText(s.from, d.zone) + "–" + clockText(s.to, d.zone)})
	}
	if !now.Before(from) && now.Before(to) {
		n := at(now)
		v.Now = &n
	}
	perMinute := pxPerMinute(v.AxisSpan, v.Scale)

	rows, index := d.rowsOf(td, byBay)
	atRisk := map[string]bool{}
	for _, o := range p.Dispatch.Jobs {
		atRisk[o.JobID] = o.AtRisk
	}
	for _, ps := range p.Dispatch.Steps {
		if !ps.Start.Before(to) || !ps.End.After(from) {
			continue
		}
		st := td.steps[ps.StepID]
		b := bar{StepID: ps.StepID, JobID: ps.JobID, Text: td.stepText(ps.StepID), Short: td.jobText(ps.StepID), Label: st.Label,
			AtRisk: atRisk[ps.JobID], State: stateOf(st, ps), TechIDs: strings.Join(ps.TechIDs, " "), BayID: ps.BayID,
			UpdatedAt: versionOf(st.UpdatedAt), Movable: st.Status == workshop.StepPending}
		b.Mark = barStates[b.State].mark
		start, end := workshop.Later(ps.Start, from), workshop.Earlier(ps.End, to)
		b.Left, b.Width = at(start), max(at(end)-at(start), 0.5)
		b.Start = int(ps.Start.Sub(day).Round(time.Minute).Minutes())
		b.ClipStart, b.ClipEnd = ps.Start.Before(from), ps.End.After(to)
		if b.ClipStart {
			b.Since = "since " + d.when(ps.Start)
		}
		if b.ClipEnd {
			b.Until = "until " + d.when(ps.End)
		}
		b.from, b.to = start.Sub(from).Minutes(), end.Sub(from).Minutes()
		b.fit(perMinute, float64(v.AxisSpan))
		when := clockText(ps.Start, d.zone) + "–" + clockText(ps.End, d.zone)
		if ps.Start.In(d.zone).Format(time.DateOnly) != date || ps.End.In(d.zone).Format(time.DateOnly) != date {
			when = d.when(ps.Start) + " until " + d.when(ps.End)
		}
		words := []string{b.shown(), when}
		if byBay {
			if names := td.techNames(ps.TechIDs); names != "" {
				words = append(words, names)
			}
			if i, ok := index[ps.BayID]; ok {
				rows[i].Bars = append(rows[i].Bars, b.named(words))
			}
			continue
		}
		if bay, ok := td.bays[ps.BayID]; ok {
			words = append(words, bay.Name)
		}
		for _, id := range ps.TechIDs {
			i, ok := index[id]
			if !ok {
				continue
			}
			tb := b
			if tb.Shared = len(ps.TechIDs) > 1; tb.Shared {
				others := slices.DeleteFunc(slices.Clone(ps.TechIDs), func(o string) bool { return o == id })
				rows[i].Bars = append(rows[i].Bars, tb.named(append(slices.Clone(words), "shared with "+td.techNames(others))))
				continue
			}
			rows[i].Bars = append(rows[i].Bars, tb.named(words))
		}
	}
	for i := range rows {
		rows[i].Lanes = laneBars(rows[i].Bars)
	}
	d.shadeAway(rows, td, byBay, day, from, to, at)
	v.Rows = rows
	v.Proposals = d.proposalDays(p, date)
	for _, pd := range v.Proposals {
		v.Proposed += pd.N
		if pd.Date == date {
			v.DayProposed = pd.N
		}
	}
	for _, u := range p.Dispatch.Unplaced {
		st := td.steps[u.StepID]
		v.Tray = append(v.Tray, trayStep{StepID: u.StepID, JobID: u.JobID, Text: td.stepText(u.StepID),
			Reason: unplacedReasons[u.Reason], UpdatedAt: versionOf(st.UpdatedAt), TechIDs: strings.Join(st.TechIDs, " "),
			BayID: deref(st.BayID), BlockedBy: u.BlockedBy, BlockedByText: td.steps[u.BlockedBy].Label})
	}
	for _, o := range p.Dispatch.Jobs {
		if !o.AtRisk {
			continue
		}
		j := td.jobs[o.JobID]
		r := riskJob{JobID: o.JobID, Text: j.JobNumber, Promise: "no promise", Projected: "a step cannot be placed"}
		if pl := deref(j.VehiclePlate); pl != "" {
			r.Text += " · " + pl
		}
		if o.PromiseTime != nil {
			r.Promise = "promised " + d.when(*o.PromiseTime)
		}
		if o.ProjectedCompletion != nil {
			r.Projected = d.when(*o.ProjectedCompletion) + ", " + durationText(o.LateMinutes) + " late"
		}
		v.AtRisk = append(v.AtRisk, r)
	}
	return v
}

// named gives the bar its full name: what it shows, when, where, and its state.
func (b bar) named(words []string) bar {
	words = append(words, barStates[b.State].words)
	if b.AtRisk {
		words = append(words, "job at risk")
	}
	if b.Since != "" {
		words = append(words, "begun before this day's view, "+b.Since)
	}
	if b.Until != "" {
		words = append(words, "goes on after this day's view, "+b.Until)
	}
	b.Name = strings.Join(words, ", ")
	return b
}

// stateOf is a planned step's state as the bar shows it.
func stateOf(st workshop.Step, ps workshop.PlannedStep) string {
	switch {
	case st.Status == workshop.StepInProgress:
		return "in-progress"
	case !ps.Pinned:
		return "proposed"
	case ps.NotBefore != nil:
		return "scheduled"
	default:
		return "assigned"
	}
}

// rowsOf is the empty rows, technicians' or bays', and the row of each id.
func (d *desk) rowsOf(td timelineData, byBay bool) ([]timelineRow, map[string]int) {
	var rows []timelineRow
	index := map[string]int{}
	if byBay {
		for _, b := range td.data.Bays {
			index[b.ID] = len(rows)
			rows = append(rows, timelineRow{ID: b.ID, Name: b.Name, Off: map[bool]string{true: "maintenance"}[b.Status == "maintenance"]})
		}
		return rows, index
	}
	for _, t := range td.data.Techs {
		index[t.ID] = len(rows)
		rows = append(rows, timelineRow{ID: t.ID, Name: t.Name, Off: map[bool]string{true: "unavailable"}[t.Status == "unavailable"]})
	}
	return rows, index
}

// offSpan is a time the workshop does not work, with why.
type offSpan struct {
	from, to time.Time
	why      string // closed, break
}

// offHours are the spans of [from, to) outside the day's opening hours or
// in its breaks, in order.
func offHours(set workshop.Settings, day, from, to time.Time) []offSpan {
	weekday := workshop.Weekdays[(int(day.Weekday())+6)%7]
	clock := func(hm string) time.Time {
		t, _ := time.Parse("15:04", hm)
		return time.Date(day.Year(), day.Month(), day.Day(), t.Hour(), t.Minute(), 0, 0, day.Location())
	}
	i := slices.IndexFunc(set.OperatingHours, func(h workshop.OpeningHours) bool { return h.Day == weekday })
	if i < 0 {
		return []offSpan{{from, to, "closed"}}
	}
	open, shut := clock(set.OperatingHours[i].Open), clock(set.OperatingHours[i].Close)
	var out []offSpan
	add := func(a, b time.Time, why string) {
		a, b = workshop.Later(a, from), workshop.Earlier(b, to)
		if a.Before(b) {
			out = append(out, offSpan{a, b, why})
		}
	}
	add(from, open, "closed")
	for _, br := range set.Breaks {
		if br.Day == weekday {
			add(clock(br.Start), clock(br.End), "break")
		}
	}
	add(shut, to, "closed")
	return out
}

// window is the part of the plan's day the rows draw: the day's opening
// hours (08:00-18:00 on a closed day), widened only for work that runs
// over them on that date (a step begun before the opening, one in
// progress past the close). Work that began on an earlier date or goes on
// to a later one is drawn clipped, its real times in words.
func (d *desk) window(p *planning.Plan, day time.Time) (from, to time.Time) {
	from, to = day.Add(8*time.Hour), day.Add(18*time.Hour)
	weekday := workshop.Weekdays[(int(day.Weekday())+6)%7]
	if i := slices.IndexFunc(p.Settings.OperatingHours, func(h workshop.OpeningHours) bool { return h.Day == weekday }); i >= 0 {
		h := p.Settings.OperatingHours[i]
		open, _ := time.Parse("15:04", h.Open)
		close, _ := time.Parse("15:04", h.Close)
		from = time.Date(day.Year(), day.Month(), day.Day(), open.Hour(), open.Minute(), 0, 0, d.zone)
		to = time.Date(day.Year(), day.Month(), day.Day(), close.Hour(), close.Minute(), 0, 0, d.zone)
	}
	end := day.AddDate(0, 0, 1)
	for _, ps := range p.Dispatch.Steps {
		if !ps.Start.Before(day) && ps.Start.Before(from) { // begun on this date before the opening
			from = ps.Start
		}
		if ps.End.After(to) && ps.End.Before(end) && ps.Start.Before(to) { // runs past the close, ends this date
			to = ps.End
		}
	}
	return from, to
}

// zone is the location's time zone (UTC when it does not load).
func (td timelineData) zone() *time.Location {
	z, err := workshop.LoadZone(td.data.Timezone)
	if err != nil {
		return time.UTC
	}
	return z
}

// shadeAway shades on each row the technician's absences (or the bay's
// maintenance windows) in [from, to), saying who or what and why, and
// says on a technician's row that they are away that day.
func (d *desk) shadeAway(rows []timelineRow, td timelineData, byBay bool, day, from, to time.Time, at func(time.Time) float64) {
	spans := td.absences()
	if byBay {
		spans = td.windows()
	}
	index := map[string]int{}
	for i, r := range rows {
		index[r.ID] = i
	}
	byOwner := map[string][]awaySpan{}
	for _, s := range spans {
		i, ok := index[s.Owner]
		if !ok {
			continue
		}
		byOwner[s.Owner] = append(byOwner[s.Owner], s)
		if !s.Start.Before(to) || !s.End.After(from) {
			continue
		}
		a, b := workshop.Later(s.Start, from), workshop.Earlier(s.End, to)
		short := "away: " + reasonWords(s.Reason)
		if byBay {
			short = "in maintenance"
			if s.Reason != "" {
				short += ": " + s.Reason
			}
		} else if s.Note != "" {
			short += " (" + s.Note + ")"
		}
		label := rows[i].Name + " " + short + ", " + d.when(s.Start) + " until " + d.when(s.End)
		rows[i].Shades = append(rows[i].Shades, span{Left: at(a), Width: at(b) - at(a), Label: label, Short: short})
	}
	if byBay {
		return
	}
	for id, ss := range byOwner {
		rows[index[id]].Away = awayWords(ss, day, day.AddDate(0, 0, 1), d.zone)
	}
}
