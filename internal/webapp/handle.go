package webapp

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// A page of the application is a function that answers the request or
// returns why it could not (the style of tailscale's tsweb
// ReturnHandlerFunc): a *pageError (refused, not found, a form that cannot
// be read), a store's not-found, or a fault of the server. answerError,
// the one place that renders an error, turns it into the answer.
type (
	pageFunc   func(w http.ResponseWriter, r *http.Request) error
	memberFunc func(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error
)

// pageError is an answer that is not the page asked for: a message page
// (a title and a sentence under the page's header, nil: none), or a page
// of its own, such as a form whose query cannot be read, at status.
type pageError struct {
	status int
	page   string // "": the message page
	v      view
}

func (e *pageError) Error() string { return fmt.Sprintf("%d %s: %v", e.status, e.page, e.v.Data) }

// messageError is a message page at status.
func messageError(status int, h *header, title, text string) *pageError {
	return &pageError{status: status, v: view{Header: h, Data: map[string]string{"Title": title, "Text": text}}}
}

var (
	errNoSuchPage = messageError(http.StatusNotFound, nil, "Not found", "There is no such page.")
	errBadForm    = messageError(http.StatusBadRequest, nil, "Bad request", "The form could not be read. Reload the page and send it again.")
)

// refused is the answer to a user whose role may not do what they asked,
// under the header h (nil: none).
func refused(h *header) error {
	return messageError(http.StatusForbidden, h, "Refused", refusedMessage)
}

// serve answers a request with h, rendering the error h returns.
func (a *App) serve(h pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			a.answerError(w, r, err)
		}
	})
}

// answerError renders an error a page returned: a pageError as its
// message, a record that is not there (or was deleted meanwhile) as not
// found, anything else as a fault of the server.
func (a *App) answerError(w http.ResponseWriter, r *http.Request, err error) {
	var pe *pageError
	switch {
	case errors.As(err, &pe):
	case workshop.ErrorCode(err) == workshop.CodeNotFound:
		pe = errNoSuchPage
	default:
		a.fail(w, r, err)
		return
	}
	page := pe.page
	if page == "" {
		page = "message"
	}
	if err := a.render(w, r, pe.status, page, pe.v); err != nil {
		a.fail(w, r, err)
	}
}

// settle ends a write: 303 to next when it went through (no error, no
// message on f); a fault of the server is returned; else the refusal
// goes on f (aliases rename the store's fields to the form's) and show
// draws the page again at the refusal's status. A stale edit (someone
// changed the record since the form was made) clears f's values, so
// that the page shows the record as it is now beside the message.
func (a *App) settle(w http.ResponseWriter, r *http.Request, err error, f *form, aliases map[string]string, next string,
	show func(status int) error) error {
	if err == nil && len(f.Errors) == 0 {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	}
	status := http.StatusUnprocessableEntity
	if err != nil {
		var known bool
		if status, known = f.refusal(err, aliases); !known {
			return err
		}
		if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
			f.Values = nil
		}
	}
	return show(status)
}
