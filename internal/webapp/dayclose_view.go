package webapp

import (
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// closeProblems are a refused day close action's messages: the finish's
// (form) or an item's (item, its key, and message).
type closeProblems struct {
	form, item, message string
}

// closeItem is an open item as the checklist shows it.
type closeItem struct {
	store.DayCloseItem
	Key     string // kind-id: the item's anchor and its inputs' ids
	Since   string // the step's start, the clock-in or the promise, local
	Ended   string // the "completed at" or "clocked out at" offered first
	Version string
	Error   string
}

// closeSection is the checklist's items of one kind.
type closeSection struct {
	Kind         workshop.CloseItemKind
	Title, Empty string
	Items        []closeItem
}

var closeSections = []closeSection{
	{Kind: workshop.CloseStepInProgress, Title: "Steps still in progress", Empty: "No step is in progress."},
	{Kind: workshop.CloseClockedIn, Title: "Technicians still clocked in", Empty: "Every technician has clocked out."},
	{Kind: workshop.ClosePromiseMissed, Title: "Jobs promised by the day's end that are not ready", Empty: "Every promise due by the day's end is kept."},
	{Kind: workshop.CloseBookingMissed, Title: "Bookings that did not arrive", Empty: "Every booking due by the day's end arrived."},
}

// closeSummary is a day's summary as the page shows it.
type closeSummary struct {
	workshop.DaySummary
	Clocked, Estimated string // hours and minutes
}

func summaryOf(s workshop.DaySummary) closeSummary {
	return closeSummary{DaySummary: s, Clocked: durationText(s.MinutesClocked), Estimated: durationText(s.MinutesEstimated)}
}

// closeDay is a day a close may be started for, as its button names it.
type closeDay struct {
	Date, Long string
	Today      bool
	Closed     *closedDay // its latest close, when it was closed already (today may be closed again)
}

// closeDays names the days a close may be started for, in their order,
// each with its latest close among recent (the latest first).
func closeDays(days workshop.CloseDays, recent []workshop.DayClose, shown []closedDay) []closeDay {
	dates := days.Offered()
	out := make([]closeDay, len(dates))
	for i, date := range dates {
		out[i] = closeDay{Date: date, Long: longDate(date), Today: date == days.Today}
		for j, c := range recent {
			if c.BusinessDate == date {
				out[i].Closed = &shown[j]
				break
			}
		}
	}
	return out
}

// closedDay is a finished close in the list of closed days.
type closedDay struct {
	ID, Date, FinishedAt, FinishedBy string
	Summary                          closeSummary
}

func (a *App) renderDayClose(w http.ResponseWriter, r *http.Request, d *desk, status int, pr closeProblems) error {
	ctx := r.Context()
	cv, err := a.store.DayCloseView(ctx, d.si.Member.Org.ID, d.loc.ID)
	if err != nil {
		return err
	}
	names := a.userNames(r, d.si.Member.Org.ID)
	recent := d.closedDays(cv.Recent, names)
	data := map[string]any{"Location": d.loc, "Now": a.now().In(d.zone).Format(inputTimeLayout), "Recent": recent}
	done := "" // the confirmation of the action just done
	if c := cv.Current; c != nil {
		sections, undecided := d.checklist(cv.Items, pr, cv.Scope)
		data["Latest"] = cv.Scope.Latest().In(d.zone).Format(inputTimeLayout) // a step's completion: within the date
		data["Current"] = map[string]any{"Date": longDate(c.BusinessDate), "StartedBy": names(c.StartedBy),
			"StartedAt": d.when(c.StartedAt.Time()), "Sections": sections, "Undecided": undecided, "SoFar": summaryOf(cv.SoFar)}
		if status == http.StatusOK {
			done = a.closeDone(ctx, d, cv.Items, r.URL.Query())
		}
		data["Done"] = done
		tags, err := a.store.CancelTags(ctx, d.loc.ID)
		if err != nil {
			return err
		}
		data["Tags"] = tags
	} else {
		days, err := a.op.DaysToClose(ctx, d.loc.ID)
		if err != nil {
			return err
		}
		data["Days"] = closeDays(days, cv.Recent, recent)
	}
	f := form{Values: map[string]string{}, Errors: map[string]string{}}
	if pr.form != "" {
		f.Errors[""] = pr.form
	}
	// A boosted form's answer is swapped in at the top of the page: show
	// the refusal beside its item, or the confirmation, instead.
	switch {
	case pr.item != "":
		w.Header().Set("HX-Reswap", "innerHTML show:#"+pr.item+":top")
	case done != "":
		w.Header().Set("HX-Reswap", "innerHTML show:#close-done:top")
	}
	h := *d.header
	h.DayClosing = cv.Current != nil // as of this read, after a start or a finish
	return a.render(w, r, status, "dayclose", view{Header: &h, Form: f, Data: data})
}

// checklist sorts the open items into their sections, with the refusal
// of the item acted on beside it and, for work left open, when it most
// likely ended (scope.EndOf) offered first; undecided counts those not
// carried over.
func (d *desk) checklist(items []store.DayCloseItem, pr closeProblems, scope workshop.CloseScope) (sections []closeSection, undecided int) {
	sections = make([]closeSection, len(closeSections))
	copy(sections, closeSections)
	for _, it := range items {
		ci := closeItem{DayCloseItem: it, Key: string(it.Kind) + "-" + it.ID, Since: d.when(it.Since.Time()), Version: versionOf(it.UpdatedAt),
			Ended: scope.EndOf(it.Since.Time()).In(d.zone).Format(inputTimeLayout)}
		if ci.Key == pr.item {
			ci.Error = pr.message
		}
		if !it.CarriedOver {
			undecided++
		}
		for i := range sections {
			if sections[i].Kind == it.Kind {
				sections[i].Items = append(sections[i].Items, ci)
			}
		}
	}
	return sections, undecided
}

func (d *desk) closedDays(closes []workshop.DayClose, names func(string) string) []closedDay {
	out := make([]closedDay, 0, len(closes))
	for _, c := range closes {
		cd := closedDay{ID: c.ID, Date: longDate(c.BusinessDate), FinishedBy: names(c.FinishedBy)}
		if c.FinishedAt != nil {
			cd.FinishedAt = d.when(c.FinishedAt.Time())
		}
		if c.Summary != nil {
			cd.Summary = summaryOf(*c.Summary)
		}
		out = append(out, cd)
	}
	return out
}

// userNames names the organisation's users by id for the page: their
// email; an operator's command (no user) is "an operator".
func (a *App) userNames(r *http.Request, orgID string) func(string) string {
	seen := map[string]string{}
	return func(id string) string {
		if id == "" {
			return "an operator"
		}
		if name, ok := seen[id]; ok {
			return name
		}
		name := "a former user"
		if u, err := a.store.User(r.Context(), id); err == nil && u.OrgID == orgID {
			name = u.Email
		}
		seen[id] = name
		return name
	}
}

func longDate(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.Format("Monday 2 January 2006")
}

// closedDayPage shows a closed day's summary.
func (a *App) closedDayPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	c, err := a.store.DayClose(r.Context(), si.Member.Org.ID, r.PathValue("closeID"))
	if err != nil {
		return err
	}
	d, err := a.deskOf(r, si, c.LocationID)
	if err != nil {
		return err
	}
	if !mayWrite(si) {
		return refused(d.header)
	}
	names := a.userNames(r, si.Member.Org.ID)
	days := d.closedDays([]workshop.DayClose{c}, names)
	carried, err := a.carriedRows(r, d, c, names)
	if err != nil {
		return err
	}
	return a.render(w, r, http.StatusOK, "dayclosed", view{Header: d.header, Data: map[string]any{"Location": d.loc, "Day": days[0],
		"Finished": c.Finished(), "StartedBy": names(c.StartedBy), "StartedAt": d.when(c.StartedAt.Time()), "Carried": carried}})
}

// carriedRow is an item a closed day left open, as its page lists it.
type carriedRow struct {
	store.CarriedItem
	When, Who string // the decision's
}

// carriedRows are what finished close c left open for the next day. A
// close finished before the finish kept only the rows it counts may hold
// more than its summary says: its page then gives the count alone.
func (a *App) carriedRows(r *http.Request, d *desk, c workshop.DayClose, names func(string) string) ([]carriedRow, error) {
	if c.Summary == nil || c.Summary.CarriedOver == 0 {
		return nil, nil
	}
	items, err := a.store.CarriedItems(r.Context(), c.OrgID, c.ID)
	if err != nil || len(items) != c.Summary.CarriedOver {
		return nil, err
	}
	rows := make([]carriedRow, len(items))
	for i, it := range items {
		rows[i] = carriedRow{CarriedItem: it, When: d.when(it.DecidedAt.Time()), Who: names(it.DecidedBy)}
	}
	return rows, nil
}
