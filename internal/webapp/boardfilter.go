package webapp

import (
	"net/url"
	"slices"

	"github.com/workshop-platform/workshop/internal/store"
)

// boardQuery is what a board shows: the wall display or the page, and its
// filters (issue 27): one status's column, the jobs with work (a step not
// completed, started or not) assigned to a technician, or in a bay
// (store.BoardFilter); the page's words say so. The page, its live
// stream and the wall display read it from the same query parameters.
type boardQuery struct {
	Wall              bool
	Status, Tech, Bay string
}

// parseBoardQuery reads a board's query; a status that is not an open
// one is no filter.
func parseBoardQuery(q url.Values) boardQuery {
	b := boardQuery{Wall: q.Get("display") == "wall", Status: q.Get("status"), Tech: q.Get("tech"), Bay: q.Get("bay")}
	if !slices.Contains(store.BoardOpenStatuses, b.Status) {
		b.Status = ""
	}
	return b
}

// encode is the query again, "" when it is the plain board.
func (b boardQuery) encode() string {
	q := url.Values{}
	if b.Wall {
		q.Set("display", "wall")
	}
	for k, v := range map[string]string{"status": b.Status, "tech": b.Tech, "bay": b.Bay} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// filtered tells whether the board shows fewer jobs than the location has.
func (b boardQuery) filtered() bool { return b.Status != "" || b.Tech != "" || b.Bay != "" }
