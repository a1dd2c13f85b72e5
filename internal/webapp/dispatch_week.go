package webapp

import (
	"net/http"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
)

// The dispatch week (contract section 7): technicians by days, each cell
// the plan's hours on the technician against their working hours that
// day, absences in words, days planned above 90 % marked busy, and the
// jobs at risk counted on the day of their projected completion (of their
// promise, when a step cannot be placed). A day opens its timeline. It is
// a table: it reads the same without JavaScript.

// weekDays is how many days the week shows.
const weekDays = 7

type weekView struct {
	LocationID       string
	From, Prev, Next string // dates; Prev or Next "" when outside the plan
	Label            string // 7 Dec – 13 Dec 2026
	Days             []weekDay
	Rows             []weekRow
	Totals           []weekCell
	Today            string
}

type weekDay struct {
	Date, Label, Href string // 2026-12-07, Mon 7 Dec, its timeline
	AtRisk            int
	Today             bool
}

type weekRow struct {
	ID, Name, Off string
	Cells         []weekCell
}

// weekCell is a technician's (or all technicians') day.
type weekCell struct {
	Planned, Available int // minutes
	Away               string
	Busy               bool
	Percent            int // planned of available, for the meter (at most 100)
	Href               string
}

func (a *App) dispatchWeek(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, allows(si, scopeBoardRead))
	if err != nil {
		return err
	}
	now := a.now()
	today, _ := time.ParseInLocation(time.DateOnly, now.In(d.zone).Format(time.DateOnly), d.zone)
	from := today
	if q := r.URL.Query().Get("from"); q != "" {
		if from, err = time.ParseInLocation(time.DateOnly, q, d.zone); err != nil {
			return messageError(http.StatusBadRequest, d.header, "Not a date", "The date is written YYYY-MM-DD, such as 2026-11-25.")
		}
	}
	last := today.AddDate(0, 0, 13)
	if from.Before(today) || from.After(last) {
		return messageError(http.StatusUnprocessableEntity, d.header, "Outside the plan",
			"The plan covers today and the next 13 days; pick a week that starts among them.")
	}
	days := weekDays
	for from.AddDate(0, 0, days-1).After(last) {
		days--
	}
	v, err := a.weekOf(r, d, from, days, today, now)
	if err != nil {
		return err
	}
	return a.render(w, r, http.StatusOK, "dispatch_week", view{Header: d.header, Data: map[string]any{"Location": d.loc, "W": v}})
}

// weekOf draws days dates from from.
func (a *App) weekOf(r *http.Request, d *desk, from time.Time, days int, today, now time.Time) (weekView, error) {
	ctx := r.Context()
	plan, err := a.plans.Plan(ctx, d.loc.ID, now)
	if err != nil {
		return weekView{}, err
	}
	td, err := a.names.of(ctx, a.store, d.loc.ID, plan.Version)
	if err != nil {
		return weekView{}, err
	}
	caps, err := a.capacity(ctx, plan, from, days, now)
	if err != nil {
		return weekView{}, err
	}
	path := dispatchPath(d.loc.ID)
	v := weekView{LocationID: d.loc.ID, From: from.Format(time.DateOnly), Today: today.Format(time.DateOnly),
		Label: from.Format("Mon 2 Jan") + " – " + from.AddDate(0, 0, days-1).Format("Mon 2 Jan 2006")}
	if prev := from.AddDate(0, 0, -weekDays); !prev.Before(today) {
		v.Prev = prev.Format(time.DateOnly)
	} else if from.After(today) {
		v.Prev = today.Format(time.DateOnly)
	}
	if next := from.AddDate(0, 0, days); !next.After(today.AddDate(0, 0, 13)) {
		v.Next = next.Format(time.DateOnly)
	}
	index := map[string]int{}
	for i := range days {
		day := from.AddDate(0, 0, i)
		date := day.Format(time.DateOnly)
		index[date] = i
		v.Days = append(v.Days, weekDay{Date: date, Label: day.Format("Mon 2 Jan"), Href: path + "?date=" + date, Today: date == v.Today})
	}
	// At-risk jobs on the day of their projected completion, or of their
	// promise when the plan cannot finish them.
	for _, o := range plan.Dispatch.Jobs {
		if !o.AtRisk {
			continue
		}
		at := o.ProjectedCompletion
		if at == nil {
			at = o.PromiseTime
		}
		if at == nil {
			continue
		}
		if i, ok := index[at.In(d.zone).Format(time.DateOnly)]; ok {
			v.Days[i].AtRisk++
		}
	}
	away := td.awayByTech()
	total := make([]weekCell, days)
	for _, t := range td.data.Techs {
		row := weekRow{ID: t.ID, Name: t.Name}
		if t.Status == "unavailable" {
			row.Off = "unavailable"
		}
		for i, c := range caps {
			td := c.Techs[t.ID]
			cell := weekCell{Planned: td.Planned, Available: td.Available, Busy: busy(td), Href: v.Days[i].Href}
			if td.Available > 0 {
				cell.Percent = min(100, td.Planned*100/td.Available)
			}
			day := from.AddDate(0, 0, i)
			cell.Away = awayWords(away[t.ID], day, day.AddDate(0, 0, 1), d.zone)
			row.Cells = append(row.Cells, cell)
			total[i].Planned += td.Planned
			total[i].Available += td.Available
		}
		v.Rows = append(v.Rows, row)
	}
	for i := range total {
		total[i].Busy = busy(techDay{Planned: total[i].Planned, Available: total[i].Available})
		if total[i].Available > 0 {
			total[i].Percent = min(100, total[i].Planned*100/total[i].Available)
		}
		total[i].Href = v.Days[i].Href
	}
	v.Totals = total
	return v, nil
}

// awaySpan is a technician's absence or a bay's maintenance window.
type awaySpan struct {
	Owner      string // technician or bay id
	Start, End time.Time
	Reason     string // vacation, sickness, training, other; a window's reason in words
	Note       string
}

// awayByTech is the technicians' absences by technician, by start.
func (td timelineData) awayByTech() map[string][]awaySpan {
	out := map[string][]awaySpan{}
	for _, s := range td.absences() {
		out[s.Owner] = append(out[s.Owner], s)
	}
	return out
}

// awayWords says the absence that overlaps [from, to), with its end:
// "away: vacation until Tue 15 Dec 08:00" ("" none).
func awayWords(spans []awaySpan, from, to time.Time, zone *time.Location) string {
	var words []string
	for _, s := range spans {
		if s.Start.Before(to) && s.End.After(from) {
			words = append(words, "away: "+reasonWords(s.Reason)+" until "+dateTimeText(s.End, zone))
		}
	}
	return strings.Join(words, "; ")
}

// reasonWords is an absence's reason as a sentence says it ("vacation").
func reasonWords(reason string) string {
	if l, ok := absenceReasonLabels[reason]; ok {
		return strings.ToLower(l)
	}
	return reason
}

// absences are the location's technicians' absences, as the plan read
// them.
func (td timelineData) absences() []awaySpan {
	out := make([]awaySpan, 0, len(td.data.Absences))
	for _, a := range td.data.Absences {
		out = append(out, awaySpan{Owner: a.TechID, Start: a.Start, End: a.End, Reason: a.Reason, Note: a.Note})
	}
	return out
}

// windows are the location's bays' maintenance windows.
func (td timelineData) windows() []awaySpan {
	out := make([]awaySpan, 0, len(td.data.MaintenanceWindows))
	for _, w := range td.data.MaintenanceWindows {
		out = append(out, awaySpan{Owner: w.BayID, Start: w.Start, End: w.End, Reason: w.Reason})
	}
	return out
}
