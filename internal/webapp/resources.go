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
//	/technicians/{techID}                            page; POST .../edit, .../status, .../delete, .../absences;
//	                                                 .../absences/{id}/remove (GET asks, POST removes)
//	/locations/{locationID}/bays                     list, POST: create
//	/bays/{bayID}                                    page; POST .../edit, .../status (maintenance), .../delete,
//	                                                 .../maintenance-windows; .../maintenance-windows/{id}/remove
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
	mux.Handle("POST /technicians/{techID}/absences", a.member(a.addAbsence))
	mux.Handle("GET /technicians/{techID}/absences/{absenceID}/remove", a.member(a.removeAbsence))
	mux.Handle("POST /technicians/{techID}/absences/{absenceID}/remove", a.member(a.removeAbsence))

	mux.Handle("GET /locations/{locationID}/bays", a.member(a.bays))
	mux.Handle("POST /locations/{locationID}/bays", a.member(a.createBay))
	mux.Handle("GET /bays/{bayID}", a.member(a.bayPage))
	mux.Handle("POST /bays/{bayID}/edit", a.member(a.editBay))
	mux.Handle("POST /bays/{bayID}/status", a.member(a.bayStatus))
	mux.Handle("POST /bays/{bayID}/delete", a.member(a.deleteBay))
	mux.Handle("POST /bays/{bayID}/maintenance-windows", a.member(a.addWindow))
	mux.Handle("GET /bays/{bayID}/maintenance-windows/{windowID}/remove", a.member(a.removeWindow))
	mux.Handle("POST /bays/{bayID}/maintenance-windows/{windowID}/remove", a.member(a.removeWindow))

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
func (a *App) resourceDesk(w http.ResponseWriter, r *http.Request, si *store.SignedIn, kind resource, locationID string) (*desk, error) {
	if !allows(si, kind.read) || r.Method == http.MethodPost && !allows(si, kind.write) {
		return nil, refused(nil)
	}
	d, err := a.deskOf(r, si, locationID)
	if err != nil {
		return nil, err
	}
	return d, parseForm(w, r)
}

// recordOf reads the record of a page of the kind (read: by the path's id,
// in the user's organisation) and the desk of its location, or
// the error to answer with (403 first, so a refusal tells nothing of the id).
func recordOf[T any](a *App, w http.ResponseWriter, r *http.Request, si *store.SignedIn, kind resource,
	read func(v store.Visibility) (T, error), locationOf func(T) string) (*desk, T, error) {
	var rec T
	if !allows(si, kind.read) || r.Method == http.MethodPost && !allows(si, kind.write) {
		return nil, rec, refused(nil)
	}
	rec, err := read(store.Visibility{OrgID: si.Member.Org.ID})
	if err != nil {
		return nil, rec, err
	}
	d, err := a.resourceDesk(w, r, si, kind, locationOf(rec))
	return d, rec, err
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
