package webapp

import (
	"bytes"
	"context"
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
)

// dispatchEvents streams a dispatch page's timeline (event "board", as
// the board's stream): the same day and rows as the page that opened it,
// drawn again after every change to the location, so that two advisors on
// the page see each other's moves and accepts.
func (a *App) dispatchEvents(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.locationDesk(w, r, si, allows(si, scopeBoardRead))
	if err != nil {
		return err
	}
	q, err := readDispatchQuery(r, d)
	if err != nil {
		return err
	}
	a.stream(w, r, si, d.loc.ID, func(ctx context.Context) ([]byte, error) {
		body, _, err := a.dispatchBodyOf(r.WithContext(ctx), d, q)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		err = a.pages["dispatch"].ExecuteTemplate(&b, "dispatchBody", body)
		return b.Bytes(), err
	})
	return nil
}
