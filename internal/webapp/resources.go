package webapp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// resourceRoutes serves technicians, bays and catalog items (issue 20, part 1).
// Each has a list of the location with a create form, a page of its own
// with the edit form, and a delete refused while open work uses it:
//
//	/locations/{locationID}/technicians              list, POST: create
//	/technicians/{techID}                            page; POST .../edit, .../status, .../delete
//	/locations/{locationID}/bays                     list, POST: create
//	/bays/{bayID}                                    page; POST .../edit, .../status (maintenance), .../delete
//	/locations/{locationID}/catalog                  list, POST: create
//	/locations/{locationID}/catalog/{serviceCode}    page; POST .../edit, .../delete
//
// Reading needs the kind's read scope, every POST its write scope.
func (a *App) resourceRoutes(mux *http.ServeMux) {
	mux.Handle("GET /locations/{locationID}/technicians", a.member(a.technicians))
	mux.Handle("POST /locations/{locationID}/technicians", a.member(a.createTechnician))
	mux.Handle("GET /technicians/{techID}", a.member(a.technicianPage))
	mux.Handle("POST /technicians/{techID}/edit", a.member(a.editTechnician))
	mux.Handle("POST /technicians/{techID}/status", a.member(a.technicianStatus))
	mux.Handle("POST /technicians/{techID}/delete", a.member(a.deleteTechnician))

	mux.Handle("GET /locations/{locationID}/bays", a.member(a.bays))
	mux.Handle("POST /locations/{locationID}/bays", a.member(a.createBay))
	mux.Handle("GET /bays/{bayID}", a.member(a.bayPage))
	mux.Handle("POST /bays/{bayID}/edit", a.member(a.editBay))
	mux.Handle("POST /bays/{bayID}/status", a.member(a.bayStatus))
	mux.Handle("POST /bays/{bayID}/delete", a.member(a.deleteBay))

	mux.Handle("GET /locations/{locationID}/catalog", a.member(a.catalog))
	mux.Handle("POST /locations/{locationID}/catalog", a.member(a.createCatalogItem))
	mux.Handle("GET /locations/{locationID}/catalog/{serviceCode}", a.member(a.catalogItemPage))
	mux.Handle("POST /locations/{locationID}/catalog/{serviceCode}/edit", a.member(a.editCatalogItem))
	mux.Handle("POST /locations/{locationID}/catalog/{serviceCode}/delete", a.member(a.deleteCatalogItem))
}

// resource is the pair of scopes that read and write one kind of record.
type resource struct{ read, write workshop.Scope }

var (
	techniciansScopes = resource{"technicians:read", "technicians:write"}
	baysScopes        = resource{"bays:read", "bays:write"}
	catalogScopes     = resource{"catalog:read", "catalog:write"}
)

// listedLimit bounds a location's list: a workshop has tens of each.
const listedLimit = 200

// resourceDesk is deskOf for a page of the kind: 403 unless the role
// reads it, and for a write (the request's method is POST) unless it
// writes it too, before anything is read.
func (a *App) resourceDesk(w http.ResponseWriter, r *http.Request, si *store.SignedIn, kind resource, locationID string) (*desk, bool) {
	if !allows(si, kind.read) || r.Method == http.MethodPost && !allows(si, kind.write) {
		a.message(w, r, http.StatusForbidden, "Refused", refusedMessage)
		return nil, false
	}
	d, ok := a.deskOf(w, r, si, locationID)
	return d, ok && (r.Method != http.MethodPost || a.parseForm(w, r))
}

// recordOf reads the record of a page of the kind (read: by the path's id,
// in the user's organisation) and the desk of its location; false when it
// answered the request (403 first, so a refusal tells nothing of the id).
func recordOf[T any](a *App, w http.ResponseWriter, r *http.Request, si *store.SignedIn, kind resource,
	read func(v store.Visibility) (T, error), locationOf func(T) string) (*desk, T, bool) {
	var rec T
	if !allows(si, kind.read) || r.Method == http.MethodPost && !allows(si, kind.write) {
		a.message(w, r, http.StatusForbidden, "Refused", refusedMessage)
		return nil, rec, false
	}
	rec, err := read(store.Visibility{OrgID: si.Member.Org.ID})
	if err != nil {
		a.readFailed(w, r, err)
		return nil, rec, false
	}
	d, ok := a.resourceDesk(w, r, si, kind, locationOf(rec))
	return d, rec, ok
}

// answer ends a write: to next (303) when it went through, else show the
// page again at the status of the refusal, which f carries. A stale edit
// (someone changed the record since the form was made) clears f's values,
// so that the page shows the record as it is now beside the message.
func (a *App) answer(w http.ResponseWriter, r *http.Request, err error, f *form, aliases map[string]string, next string, show func(status int)) {
	status, again := a.settle(w, r, err, f, aliases, next)
	if !again {
		return
	}
	if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt {
		f.Values = nil
	}
	show(status)
}

// settle answers a write that went through (303 to next) or failed on a
// fault of the server (500); again tells that it did neither: the refusal
// is on f, and the page is to be shown again at status.
func (a *App) settle(w http.ResponseWriter, r *http.Request, err error, f *form, aliases map[string]string, next string) (status int, again bool) {
	if err == nil && len(f.Errors) == 0 {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return 0, false
	}
	if err == nil {
		return http.StatusUnprocessableEntity, true
	}
	status, known := f.refusal(err, aliases)
	if !known {
		a.fail(w, r, err)
	}
	return status, known
}

// formOr is the form a failed write left (its values, or the record's
// current ones after a stale edit) or a fresh one of the record's values.
func formOr(failed *form, current map[string]string) form {
	switch {
	case failed == nil:
		return *newForm(current)
	case failed.Values == nil:
		return form{Values: current, Errors: failed.Errors}
	}
	return *failed
}

// listOf reads a comma-separated list: entries trimmed, blanks and repeats
// dropped.
func listOf(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return workshop.Dedupe(out)
}

func listText(list []string) string { return strings.Join(list, ", ") }

// wholeNumber reads a form's number into n, or puts message beside field.
func (f form) wholeNumber(field, message string, n *int) {
	v, err := strconv.Atoi(strings.TrimSpace(f.Values[field]))
	if err != nil {
		f.Errors[field] = message
		return
	}
	*n = v
}
