package webapp

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func boardPath(locationID string) string { return "/locations/" + locationID + "/board" }

// boardPerStatus is how many jobs of each open status the board lists,
// wallPerStatus the wall display, whose wall.js pages through them (what
// fits one screen, a page every 15 s); the rest are "and K more", from
// the counts.
const (
	boardPerStatus = 50
	wallPerStatus  = 50
)

// boardCount is one count of the board, labelled, with the job list it
// counts (every count has one; a status filter's choice none).
type boardCount struct {
	Status, Label, Href string
	N                   int
}

// boardCounts are the board's counts in the order a job goes through.
var boardCounts = append(slices.Clone(workshop.JobStatuses), jobsLate, jobsAtRisk, "total")

// boardData is what the board's body renders: the page, the wall display
// and every push of the live stream alike.
type boardData struct {
	Location *workshop.Location
	Counts   []boardCount
	Columns  []boardColumn
	Techs    []boardTech
	Bays     []boardBay
	Updated  string // the local time it was read
	Wall     bool
	Query    boardQuery
	Filtered bool
	// StatusChoices are the statuses the board filters by.
	StatusChoices []boardCount
	LivePath      string
	WallPath      string
	BoardPath     string
	JobsPath      string // the job list and search
	// LeftOpen is the note of work left open from a day not closed, for
	// those who close days; nil when there is none.
	LeftOpen *leftOpen
}

type boardColumn struct {
	Status, Label string
	Jobs          []boardJob
	More          int  // jobs of the status not listed
	Capped        bool // filtered, and perhaps more jobs than listed
}

type boardJob struct {
	Path, Number, Plate, Vehicle, Promise, Priority string
	// Expected is a late booking's drop-off time ("13:00", the date too
	// when it is not today): the car has not come yet.
	Expected string
	AtRisk   bool
	Risk     string // why, in words
	Steps    []boardStep
}

type boardStep struct{ Label, Techs, Bay string }

type boardTech struct {
	ID, Name, Status string
	ClockedIn        bool
	Busy             bool
	Jobs             string // the numbers of the jobs they work on
}

type boardBay struct {
	ID, Name, State, Job string // State: free, occupied, maintenance
}

// boardLocation is the signed-in member's header and the location shown,
// nil when the location is not one of the member's organisation.
func (a *App) boardLocation(r *http.Request, si *store.SignedIn, locID string) (*header, *workshop.Location, error) {
	h, err := a.headerOf(r, si, locID)
	if err != nil {
		return nil, nil, err
	}
	for i := range h.Locations {
		if h.Locations[i].ID == locID {
			return h, &h.Locations[i], nil
		}
	}
	return h, nil, nil
}

// board is a location's board: jobs by status, the work in progress,
// technicians, bays and the counts, kept live by live.js over the board's
// event stream. Every role sees it (issue 19: a technician sees the
// board). ?display=wall is the wall display: the board alone, full screen.
func (a *App) board(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	locID := r.PathValue("locationID")
	h, loc, err := a.boardLocation(r, si, locID)
	if err != nil {
		return err
	}
	if loc == nil { // of another organisation, or none: alike
		return errNoSuchPage
	}
	q := parseBoardQuery(r.URL.Query())
	d, err := a.boardData(r.Context(), si, loc, q)
	if err != nil {
		return err
	}
	// While a close is under way its banner says so: the note that a day
	// was not closed waits for its finish.
	if !q.Wall && mayWrite(si) && !h.DayClosing {
		if d.LeftOpen, err = a.leftOpen(r.Context(), loc); err != nil {
			return err
		}
	}
	if q.Wall {
		var b bytes.Buffer
		if err := a.wall.ExecuteTemplate(&b, "wall.html", d); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = b.WriteTo(w)
		return nil
	}
	return a.render(w, r, http.StatusOK, "board", view{Header: h, Data: d})
}

// boardData reads and shapes a location's board now, as q asks.
func (a *App) boardData(ctx context.Context, si *store.SignedIn, loc *workshop.Location, q boardQuery) (*boardData, error) {
	now := a.now()
	b, err := a.store.Board(ctx, loc.ID, workshop.MicrosOf(now))
	if err != nil {
		return nil, err
	}
	atRisk, err := a.store.AtRiskCount(ctx, store.Visibility{OrgID: si.Member.Org.ID, LocationID: loc.ID}, loc.ID, workshop.MicrosOf(now))
	if err != nil {
		return nil, err
	}
	b.Jobs[jobsAtRisk] = atRisk
	perStatus := boardPerStatus
	if q.Wall {
		perStatus = wallPerStatus
	}
	v, err := a.store.BoardView(ctx, loc.ID, perStatus, store.BoardFilter{TechID: q.Tech, BayID: q.Bay})
	if err != nil {
		return nil, err
	}
	zone, err := workshop.LoadZone(loc.Timezone)
	if err != nil {
		zone = time.UTC
	}
	wallQuery := q
	wallQuery.Wall = true
	d := &boardData{Location: loc, Updated: now.In(zone).Format("15:04:05"), Wall: q.Wall, Query: q, Filtered: q.filtered(),
		LivePath: boardPath(loc.ID) + "/events" + q.encode(), WallPath: boardPath(loc.ID) + wallQuery.encode(),
		BoardPath: boardPath(loc.ID), JobsPath: jobsPath(loc.ID)}
	for _, status := range store.BoardOpenStatuses {
		d.StatusChoices = append(d.StatusChoices, boardCount{Status: status, Label: statusLabel(status)})
	}
	for _, status := range boardCounts {
		c := boardCount{Status: status, Label: statusLabel(status), N: b.Jobs[status], Href: jobsPath(loc.ID) + "?status=" + status}
		if status == "total" {
			c.Href = jobsPath(loc.ID) + "?status=" + jobsAll
		}
		d.Counts = append(d.Counts, c)
	}

	techName := map[string]string{}
	for _, t := range v.Techs {
		techName[t.ID] = t.Name
	}
	bayName := map[string]string{}
	for _, bay := range v.Bays {
		bayName[bay.ID] = bay.Name
	}
	stepsOf := map[string][]boardStep{}
	busy := map[string][]string{}   // tech id -> job numbers
	bayJob := map[string][]string{} // bay id -> job numbers
	for _, st := range v.Active {
		var names []string
		for _, id := range st.TechIDs {
			name := techName[id]
			if name == "" {
				name = "(removed technician)"
			}
			names = append(names, name)
			busy[id] = appendOnce(busy[id], st.JobNumber)
		}
		s := boardStep{Label: st.Label, Techs: strings.Join(names, ", ")}
		if st.BayID != nil {
			s.Bay = bayName[*st.BayID]
			if s.Bay == "" {
				s.Bay = "(removed bay)"
			}
			bayJob[*st.BayID] = appendOnce(bayJob[*st.BayID], st.JobNumber)
		}
		stepsOf[st.JobID] = append(stepsOf[st.JobID], s)
	}

	for _, status := range store.BoardOpenStatuses {
		if q.Status != "" && q.Status != status {
			continue
		}
		col := boardColumn{Status: status, Label: statusLabel(status)}
		for _, j := range v.Jobs[status] {
			bj := boardJob{Path: jobPath(j.ID), Number: j.JobNumber, Plate: deref(j.Plate), Priority: j.Priority, Steps: stepsOf[j.ID],
				Vehicle: strings.TrimSpace(deref(j.Make) + " " + deref(j.Model))}
			// At risk: late (workshop.Late), or the promise watch last
			// saw the plan finish it after its promise (job.at_risk).
			if j.PromiseTime != nil {
				bj.Promise = dateTimeText(j.PromiseTime.Time, zone)
			}
			if workshop.ArrivalOverdue(j.Status, j.ExpectedArrival, now) {
				bj.Expected = clockText(*j.ExpectedArrival, zone)
				if !sameDay(*j.ExpectedArrival, now, zone) {
					bj.Expected = dateTimeText(*j.ExpectedArrival, zone)
				}
			}
			if workshop.Late(j.Status, j.PromiseTime, now) {
				bj.AtRisk, bj.Risk = true, "Late: promise passed"
			}
			if !bj.AtRisk && j.PlanLateMinutes != nil && j.Status != workshop.JobReady {
				bj.AtRisk, bj.Risk = true, "At risk: planned "+durationText(*j.PlanLateMinutes)+" late"
			}
			col.Jobs = append(col.Jobs, bj)
		}
		if q.Tech == "" && q.Bay == "" {
			col.More = max(0, b.Jobs[status]-len(col.Jobs))
		} else { // the counts are the location's: of the filtered jobs, only that some are left out is known
			col.Capped = len(col.Jobs) == perStatus
		}
		d.Columns = append(d.Columns, col)
	}
	for _, t := range v.Techs {
		jobs := busy[t.ID]
		d.Techs = append(d.Techs, boardTech{ID: t.ID, Name: t.Name, Status: t.Status, ClockedIn: t.ClockedIn, Busy: len(jobs) > 0,
			Jobs: strings.Join(jobs, ", ")})
	}
	for _, bay := range v.Bays {
		x := boardBay{ID: bay.ID, Name: bay.Name, State: "free"}
		switch {
		case bay.JobNumber != nil:
			x.State, x.Job = "occupied", *bay.JobNumber
		case bay.Status == "maintenance":
			x.State = "maintenance"
		}
		d.Bays = append(d.Bays, x)
	}
	return d, nil
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// parseWall parses the wall display: a document of its own (no header,
// no controls) around the board's body.
func parseWall() (*template.Template, error) {
	funcs := template.FuncMap{"asset": func(name string) string { return assetPaths[name] }}
	return template.New("wall.html").Funcs(funcs).ParseFS(templateFS, "templates/wall.html", "templates/board.html")
}
