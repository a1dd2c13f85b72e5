package webapp

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func catalogPath(locationID string) string { return "/locations/" + locationID + "/catalog" }

func catalogItemPath(locationID, code string) string {
	return catalogPath(locationID) + "/" + url.PathEscape(code)
}

var catalogFields = []string{"name", "estimatedDuration", "requiredSkills", "isActive"}

var durationMessage = "Enter the estimate in minutes, 1 to " + strconv.Itoa(workshop.MaxDuration) + "."

// catalogRow is a catalog item in the location's list.
type catalogRow struct {
	Code, Path, Name, Skills string
	Minutes                  int
	Active                   bool
}

func catalogRowOf(it workshop.CatalogItem) catalogRow {
	return catalogRow{Code: it.ServiceCode, Path: catalogItemPath(it.LocationID, it.ServiceCode), Name: it.Name,
		Skills: listText(it.RequiredSkills), Minutes: it.EstimatedDuration, Active: it.IsActive}
}

// checked is a checkbox's form value.
func checked(on bool) string {
	if on {
		return "on"
	}
	return ""
}

// catalogItemOf reads a catalog form into an item of the desk's location.
func (d *desk) catalogItemOf(f form, code string) workshop.CatalogItem {
	it := workshop.CatalogItem{OrgID: d.loc.OrgID, LocationID: d.loc.ID, ServiceCode: code, Name: f.Values["name"],
		RequiredSkills: listOf(f.Values["requiredSkills"]), IsActive: f.Values["isActive"] != ""}
	f.wholeNumber("estimatedDuration", durationMessage, &it.EstimatedDuration)
	if it.RequiredSkills == nil {
		it.RequiredSkills = []string{}
	}
	return it
}

func (a *App) catalog(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.resourceDesk(w, r, si, catalogScopes, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	return a.renderCatalog(w, r, d, http.StatusOK, nil)
}

// renderCatalog writes the location's catalog with the create form
// (failed: as a refused create left it).
func (a *App) renderCatalog(w http.ResponseWriter, r *http.Request, d *desk, status int, failed *form) error {
	list, err := a.store.CatalogItems(r.Context(), d.visibility(), workshop.PageRequest{Limit: listedLimit})
	if err != nil {
		return err
	}
	rows := make([]catalogRow, len(list.Data))
	for i, it := range list.Data {
		rows[i] = catalogRowOf(it)
	}
	f := formOr(failed, map[string]string{"serviceCode": "", "name": "", "estimatedDuration": "60", "requiredSkills": "", "isActive": "on"})
	return a.render(w, r, status, "catalog", view{Header: d.header, Form: f, Data: map[string]any{"Location": d.loc, "Items": rows,
		"More": list.NextCursor != nil, "MayWrite": allows(d.si, catalogScopes.write)}})
}

func (a *App) createCatalogItem(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.resourceDesk(w, r, si, catalogScopes, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	f := formOf(r, append(catalogFields, "serviceCode")...)
	it := d.catalogItemOf(f, f.Values["serviceCode"])
	now := workshop.MicrosOf(a.now())
	it.ID, it.CreatedAt, it.UpdatedAt = workshop.NewID(workshop.PrefixCatalogItem), now, now
	f.invalid(workshop.CheckCatalogItem(it))
	if len(f.Errors) == 0 {
		_, err = a.store.CreateCatalogItem(r.Context(), it)
	}
	return a.settle(w, r, err, &f, nil, catalogItemPath(d.loc.ID, it.ServiceCode), func(status int) error { return a.renderCatalog(w, r, d, status, &f) })
}

// catalogItemForms are the forms of a catalog item's page a write failed on.
type catalogItemForms struct{ edit, remove *form }

// catalogItemOf reads the item of the path and the desk of its location;
// false: answered.
func (a *App) catalogItemOf(w http.ResponseWriter, r *http.Request, si *store.SignedIn) (*desk, workshop.CatalogItem, error) {
	return recordOf(a, w, r, si, catalogScopes, func(v store.Visibility) (workshop.CatalogItem, error) {
		return a.store.CatalogItem(r.Context(), v, r.PathValue("locationID"), r.PathValue("serviceCode"))
	}, func(it workshop.CatalogItem) string { return it.LocationID })
}

func (a *App) catalogItemPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, it, err := a.catalogItemOf(w, r, si)
	if err != nil {
		return err
	}
	return a.renderCatalogItem(w, r, d, it.ServiceCode, http.StatusOK, catalogItemForms{})
}

// renderCatalogItem writes a catalog item's page as the item is now.
func (a *App) renderCatalogItem(w http.ResponseWriter, r *http.Request, d *desk, code string, status int, fs catalogItemForms) error {
	it, err := a.store.CatalogItem(r.Context(), d.visibility(), d.loc.ID, code)
	if err != nil {
		return err
	}
	return a.render(w, r, status, "catalogitem", view{Header: d.header, Data: map[string]any{
		"Location": d.loc, "Item": catalogRowOf(it), "MayWrite": allows(d.si, catalogScopes.write),
		"Edit": formOr(fs.edit, map[string]string{"name": it.Name, "estimatedDuration": strconv.Itoa(it.EstimatedDuration),
			"requiredSkills": listText(it.RequiredSkills), "isActive": checked(it.IsActive), "updatedAt": versionOf(it.UpdatedAt)}),
		"Remove": formOr(fs.remove, map[string]string{})}})
}

func (a *App) editCatalogItem(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, it, err := a.catalogItemOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, append(catalogFields, "updatedAt")...)
	in := d.catalogItemOf(f, it.ServiceCode)
	in.UpdatedAt = workshop.MicrosOf(a.now())
	if len(f.Errors) == 0 {
		_, err = a.store.EditCatalogItem(r.Context(), d.visibility(), in, parseVersion(f.Values["updatedAt"]))
	}
	path := catalogItemPath(d.loc.ID, it.ServiceCode)
	return a.settle(w, r, err, &f, nil, path, func(status int) error {
		return a.renderCatalogItem(w, r, d, it.ServiceCode, status, catalogItemForms{edit: &f})
	})
}

func (a *App) deleteCatalogItem(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, it, err := a.catalogItemOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r)
	err = a.store.DeleteUnusedCatalogItem(r.Context(), d.visibility(), d.loc.ID, it.ServiceCode)
	return a.settle(w, r, err, &f, nil, catalogPath(d.loc.ID), func(status int) error {
		return a.renderCatalogItem(w, r, d, it.ServiceCode, status, catalogItemForms{remove: &f})
	})
}
