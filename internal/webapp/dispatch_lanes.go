package webapp

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/workshop-platform/workshop/internal/planning"
)

// How the day's timeline is laid out on the server, so that it reads
// without JavaScript: the zoom sizes the track, each bar's text goes in
// it when it fits at the track's narrowest and beside it otherwise, and
// the bars of a row (with the text beside them) go to lanes so that none
// hides another.

// The zooms: the whole day, half of it, two hours in the view (the track
// scrolls sideways).
const (
	zoomDay      = "day"
	zoomHalf     = "half"
	zoomTwoHours = "2h"
)

type zoomLink struct {
	Key, Label string
	Current    bool
}

var zoomLabels = [][2]string{{zoomDay, "The day"}, {zoomHalf, "Half a day"}, {zoomTwoHours, "Two hours"}}

// zoomOf is the zoom asked for (the day when none or unknown) and the
// track's scale against the day's width for an axis of span minutes.
func zoomOf(zoom string, span int) (string, float64) {
	switch zoom {
	case zoomHalf:
		return zoom, max(1, float64(span)/max(float64(span)/2, 120))
	case zoomTwoHours:
		return zoom, max(1, float64(span)/120)
	}
	return zoomDay, 1
}

func zoomLinks(current string) []zoomLink {
	out := make([]zoomLink, 0, len(zoomLabels))
	for _, z := range zoomLabels {
		out = append(out, zoomLink{Key: z[0], Label: z[1], Current: z[0] == current})
	}
	return out
}

// The track's narrowest width: an hour is never less than
// hourMinPx (app.css: .tl-inner's --hour), and the day's track never
// less than trackMinPx, the track of a 1280-px window; text is charPx a
// character (.8rem), plus barPadPx.
const (
	hourMinPx  = 80
	trackMinPx = 800
	charPx     = 8.4
	barPadPx   = 26
)

// pxPerMinute is the track's narrowest scale at a zoom.
func pxPerMinute(span int, scale float64) float64 {
	return max(float64(hourMinPx*span)/60, trackMinPx) / float64(span) * scale
}

// words is the text a bar shows: where it began or ends when clipped, and
// the job number and plate.
func (b bar) words() string {
	return strings.Join(slices.DeleteFunc([]string{b.Since, b.Short, b.Until}, func(s string) bool { return s == "" }), " · ")
}

// shown is all a bar that holds its text shows, first in its name (so
// that its accessible name begins with what is seen).
func (b bar) shown() string {
	return strings.Join(slices.DeleteFunc([]string{b.Since, b.Short, b.Label, b.Until}, func(s string) bool { return s == "" }), " · ")
}

// fit decides whether the bar's text fits in it at perMinute, else it is
// drawn beside the bar (after it, or before it at the axis's end), and
// how far the bar's text reaches.
func (b *bar) fit(perMinute, span float64) {
	need := (float64(utf8.RuneCountInString(b.words()))*charPx + barPadPx) / perMinute
	b.reach = b.to
	if b.to-b.from >= need {
		return
	}
	b.Beside = true
	b.reach = b.to + need + 4/perMinute
	if b.reach > span { // no room after it: the text goes before it
		b.BesideLeft = true
		b.reach = b.to
		b.from = max(b.from-need, 0)
	}
}

// laneBars gives each bar of a row a lane, the first free one, so that
// no bar or its text overlaps another; it is the number of lanes.
func laneBars(bars []bar) int {
	order := make([]int, len(bars))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case bars[i].from < bars[j].from:
			return -1
		case bars[i].from > bars[j].from:
			return 1
		}
		return 0
	})
	var ends []float64 // each lane's end
	for _, i := range order {
		b := &bars[i]
		lane := slices.IndexFunc(ends, func(e float64) bool { return e <= b.from })
		if lane < 0 {
			lane = len(ends)
			ends = append(ends, 0)
		}
		b.Lane, ends[lane] = lane, b.reach
		b.Style = template.CSS(fmt.Sprintf("left:%g%%;width:%g%%;--lane:%d", b.Left, b.Width, b.Lane))
	}
	return max(len(ends), 1)
}

// proposalDay is how many of the plan's proposals start on a date.
type proposalDay struct {
	Date, Label string // 2026-12-07, Mon 7 Dec
	N           int
}

// proposalDays counts the plan's proposals (steps it assigned that no one
// accepted yet) by the local date they start on, in date order.
func (d *desk) proposalDays(p *planning.Plan, shown string) []proposalDay {
	var out []proposalDay
	for _, ps := range p.Dispatch.Steps {
		if ps.Pinned {
			continue
		}
		local := ps.Start.In(d.zone)
		date := local.Format(time.DateOnly)
		i := slices.IndexFunc(out, func(pd proposalDay) bool { return pd.Date == date })
		if i < 0 {
			i = len(out)
			out = append(out, proposalDay{Date: date, Label: local.Format("Mon 2 Jan")})
		}
		out[i].N++
	}
	slices.SortFunc(out, func(a, b proposalDay) int { return strings.Compare(a.Date, b.Date) })
	return out
}

// dayProposals are the steps the plan proposes that start on date.
func (d *desk) dayProposals(p *planning.Plan, date string) []string {
	var ids []string
	for _, ps := range p.Dispatch.Steps {
		if !ps.Pinned && ps.Start.In(d.zone).Format(time.DateOnly) == date {
			ids = append(ids, ps.StepID)
		}
	}
	return ids
}

// jobText is a step's job as the bar shows it first: number and plate.
func (td timelineData) jobText(stepID string) string {
	j := td.jobs[td.steps[stepID].JobID]
	if p := deref(j.VehiclePlate); p != "" {
		return j.JobNumber + " · " + p
	}
	return j.JobNumber
}
