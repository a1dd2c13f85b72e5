package webapp

import (
	"net/http"
	"slices"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func bayPath(id string) string { return "/bays/" + id }

var bayFields = []string{"name", "equipment", "services"}

// bayRow is a bay in the location's list.
type bayRow struct {
	ID, Name, Equipment, Services string
	State, StateLabel             string // maintenance, occupied or free, in words
	Maintenance                   bool
}

func bayRowOf(b workshop.Bay) bayRow {
	row := bayRow{ID: b.ID, Name: b.Name, Equipment: listText(b.Equipment), Services: listText(b.Services),
		State: "available", StateLabel: "Free", Maintenance: b.Status == "maintenance"}
	switch {
	case row.Maintenance:
		row.State, row.StateLabel = "maintenance", "In maintenance"
	case b.Occupied:
		row.State, row.StateLabel = "in_progress", "Occupied"
	}
	return row
}

func (a *App) bays(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.resourceDesk(w, r, si, baysScopes, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	return a.renderBays(w, r, d, http.StatusOK, nil)
}

// renderBays writes the location's bays with the create form (failed: as
// a refused create left it).
func (a *App) renderBays(w http.ResponseWriter, r *http.Request, d *desk, status int, failed *form) error {
	list, err := a.store.Bays(r.Context(), d.visibility(), workshop.PageRequest{Limit: listedLimit})
	if err != nil {
		return err
	}
	rows := make([]bayRow, len(list.Data))
	for i, b := range list.Data {
		rows[i] = bayRowOf(b)
	}
	return a.render(w, r, status, "bays", view{Header: d.header, Form: formOr(failed, map[string]string{"name": "", "equipment": "", "services": ""}),
		Data: map[string]any{"Location": d.loc, "Bays": rows, "More": list.NextCursor != nil, "MayWrite": allows(d.si, baysScopes.write)}})
}

func (a *App) createBay(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.resourceDesk(w, r, si, baysScopes, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	f := formOf(r, bayFields...)
	b := workshop.Bay{Name: f.Values["name"], Equipment: listOf(f.Values["equipment"]), Services: listOf(f.Values["services"])}
	err = workshop.CheckBay(b)
	if err == nil {
		b, err = a.op.CreateBay(r.Context(), d.loc.ID, b.Name, b.Equipment, b.Services)
	}
	return a.settle(w, r, err, &f, nil, bayPath(b.ID), func(status int) error { return a.renderBays(w, r, d, status, &f) })
}

// bayForms are the forms of a bay's page a write failed on.
type bayForms struct{ edit, status, remove, window *form }

// bayOf reads the bay of the path and the desk of its location; false:
// answered.
func (a *App) bayOf(w http.ResponseWriter, r *http.Request, si *store.SignedIn) (*desk, workshop.Bay, error) {
	return recordOf(a, w, r, si, baysScopes, func(v store.Visibility) (workshop.Bay, error) {
		return a.store.Bay(r.Context(), v, r.PathValue("bayID"))
	}, func(b workshop.Bay) string { return b.LocationID })
}

func (a *App) bayPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, b, err := a.bayOf(w, r, si)
	if err != nil {
		return err
	}
	return a.renderBay(w, r, d, b.ID, http.StatusOK, bayForms{})
}

// renderBay writes a bay's page as the bay is now.
func (a *App) renderBay(w http.ResponseWriter, r *http.Request, d *desk, id string, status int, fs bayForms) error {
	b, err := a.store.Bay(r.Context(), d.visibility(), id)
	if err != nil {
		return err
	}
	version := versionOf(b.UpdatedAt)
	st := formOr(fs.status, map[string]string{})
	st.Values["updatedAt"] = version // into or out of maintenance from what the page shows
	windows, err := a.windowsView(r, d, b, fs.window)
	if err != nil {
		return err
	}
	return a.render(w, r, status, "bay", view{Header: d.header, Data: map[string]any{
		"Location": d.loc, "Bay": bayRowOf(b), "MayWrite": allows(d.si, baysScopes.write), "Windows": windows,
		"Edit": formOr(fs.edit, map[string]string{"name": b.Name, "equipment": listText(b.Equipment), "services": listText(b.Services),
			"updatedAt": version}),
		"Status": st, "Remove": formOr(fs.remove, map[string]string{})}})
}

func (a *App) editBay(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, b, err := a.bayOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, append(bayFields, "updatedAt")...)
	_, err = a.store.EditBay(r.Context(), d.visibility(), b.ID, store.BayEdit{UpdatedAt: parseVersion(f.Values["updatedAt"]),
		Name: f.Values["name"], Equipment: listOf(f.Values["equipment"]), Services: listOf(f.Values["services"])}, workshop.MicrosOf(a.now()))
	return a.settle(w, r, err, &f, nil, bayPath(b.ID), func(status int) error { return a.renderBay(w, r, d, b.ID, status, bayForms{edit: &f}) })
}

// bayStatus puts the bay into or out of maintenance as the API's PATCH
// does (bay.status_changed).
func (a *App) bayStatus(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, b, err := a.bayOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, "status", "updatedAt")
	if !slices.Contains(workshop.BayStatuses, f.Values["status"]) {
		f.Errors[""] = "Choose whether the bay is in maintenance."
	} else {
		_, err = a.store.PatchBayStatus(r.Context(), d.visibility(), b.ID, parseVersion(f.Values["updatedAt"]), f.Values["status"],
			workshop.MicrosOf(a.now()))
	}
	return a.settle(w, r, err, &f, nil, bayPath(b.ID), func(status int) error { return a.renderBay(w, r, d, b.ID, status, bayForms{status: &f}) })
}

func (a *App) deleteBay(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, b, err := a.bayOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r)
	err = a.store.DeleteUnusedBay(r.Context(), d.visibility(), b.ID)
	return a.settle(w, r, err, &f, nil, "/locations/"+d.loc.ID+"/bays", func(status int) error {
		return a.renderBay(w, r, d, b.ID, status, bayForms{remove: &f})
	})
}
