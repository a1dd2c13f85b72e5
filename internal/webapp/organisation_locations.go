package webapp

import (
	"net/http"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// zoneSuggestions are offered as the time zone input's suggestions; any IANA
// name is accepted.
var zoneSuggestions = []string{
	"Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Amsterdam", "Europe/Brussels",
	"Europe/Zurich", "Europe/Vienna", "Europe/Rome", "Europe/Madrid", "Europe/Stockholm", "Europe/Oslo", "Europe/Copenhagen",
	"Europe/Helsinki", "Europe/Warsaw", "Europe/Prague", "Europe/Budapest", "Europe/Athens", "Europe/Istanbul",
	"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Toronto", "America/Mexico_City",
	"America/Sao_Paulo", "Asia/Dubai", "Asia/Kolkata", "Asia/Singapore", "Asia/Tokyo", "Australia/Sydney", "Pacific/Auckland",
	"Africa/Johannesburg", "UTC",
}

var orgLocationFields = []string{"name", "timezone", "currency", "updatedAt", "confirmZone"}

// orgLocationPageData is the page of a new location or of one to edit.
type orgLocationPageData struct {
	Location *workshop.Location // nil: a new one
	Zones    []string
	HasJobs  bool // a new time zone needs confirming
}

func (a *App) newOrgLocationPage(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	f := form{Values: map[string]string{"currency": "EUR"}, Errors: map[string]string{}}
	return a.render(w, r, http.StatusOK, "organisation_location", view{Header: o.header, Form: f, Data: orgLocationPageData{Zones: zoneSuggestions}})
}

// createOrgLocation makes a location with the default workshop settings; it
// shows in every page's header at once.
func (a *App) createOrgLocation(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	f := formOf(r, orgLocationFields...)
	_, err := a.op.CreateLocation(r.Context(), o.orgID(), strings.TrimSpace(f.Values["name"]),
		strings.TrimSpace(f.Values["timezone"]), strings.TrimSpace(f.Values["currency"]))
	if err == nil {
		http.Redirect(w, r, organisationPath, http.StatusSeeOther)
		return nil
	}
	if !f.invalid(err) {
		return err
	}
	return a.render(w, r, http.StatusUnprocessableEntity, "organisation_location", view{Header: o.header, Form: f, Data: orgLocationPageData{Zones: zoneSuggestions}})
}

// orgLocation is the location of the path in the header's list (the
// organisation's locations), or not found.
func orgLocation(r *http.Request, o orgAdmin) (workshop.Location, error) {
	i := slices.IndexFunc(o.header.Locations, func(l workshop.Location) bool { return l.ID == r.PathValue("locationID") })
	if i < 0 {
		return workshop.Location{}, errNoSuchPage
	}
	return o.header.Locations[i], nil
}

func (a *App) orgLocationPage(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	l, err := orgLocation(r, o)
	if err != nil {
		return err
	}
	return a.renderOrgLocation(w, r, o, l, http.StatusOK, orgLocationForm(l))
}

// orgLocationForm is the edit form filled with the location as it is.
func orgLocationForm(l workshop.Location) form {
	return form{Values: map[string]string{"name": l.Name, "timezone": l.Timezone, "currency": l.CurrencyCode,
		"updatedAt": versionOf(l.UpdatedAt)}, Errors: map[string]string{}}
}

func (a *App) renderOrgLocation(w http.ResponseWriter, r *http.Request, o orgAdmin, l workshop.Location, status int, f form) error {
	has, err := a.store.LocationHasJobs(r.Context(), l.ID)
	if err != nil {
		return err
	}
	return a.render(w, r, status, "organisation_location", view{Header: o.header, Form: f,
		Data: orgLocationPageData{Location: &l, Zones: zoneSuggestions, HasJobs: has}})
}

// editOrgLocation changes a location's name, time zone and currency against
// the version the form was made from; a stale edit shows the current
// values with the conflict.
func (a *App) editOrgLocation(w http.ResponseWriter, r *http.Request, o orgAdmin) error {
	l, err := orgLocation(r, o)
	if err != nil {
		return err
	}
	f := formOf(r, orgLocationFields...)
	fields, err := operator.CheckLocationFields(operator.LocationFields{Name: strings.TrimSpace(f.Values["name"]),
		Timezone: strings.TrimSpace(f.Values["timezone"]), Currency: strings.TrimSpace(f.Values["currency"])})
	if err == nil {
		_, err = a.store.EditLocation(r.Context(), o.orgID(), l.ID, store.LocationEdit{Name: fields.Name, Timezone: fields.Timezone,
			Currency: fields.Currency, UpdatedAt: parseVersion(f.Values["updatedAt"]), ZoneChangeConfirmed: f.Values["confirmZone"] != ""},
			workshop.MicrosOf(a.now()))
	}
	if err == nil {
		http.Redirect(w, r, organisationPath, http.StatusSeeOther)
		return nil
	}
	status, known := f.refusal(err, nil)
	if !known {
		return err
	}
	if status == http.StatusConflict { // someone else changed it: the form shows it as it is now
		cur, err := a.store.Location(r.Context(), o.orgID(), l.ID)
		if err != nil {
			return err
		}
		l, f = cur, form{Values: orgLocationForm(cur).Values, Errors: f.Errors}
	}
	return a.renderOrgLocation(w, r, o, l, status, f)
}
