package webapp

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func technicianPath(id string) string { return "/technicians/" + id }

var (
	technicianStatusLabels = map[string]string{"available": "Available", "on_break": "On break", "unavailable": "Unavailable"}
	// technicianAliases name the operator's and store's fields as the form does.
	technicianAliases = map[string]string{"wip-limit": "wipLimit", "user": "userId"}
	technicianFields  = []string{"name", "skills", "wipLimit", "userId"}
)

var wipMessage = fmt.Sprintf("Enter the limit as a whole number from 1 to %d.", workshop.MaxWIPLimit)

// technicianRow is a technician in the location's list.
type technicianRow struct {
	ID, Name, Skills, Status, StatusLabel, User, Hours string
	WIPLimit                                           int
	ClockedIn                                          bool
}

func technicianRowOf(t workshop.Technician, emails map[string]string) technicianRow {
	return technicianRow{ID: t.ID, Name: t.Name, Skills: listText(t.Skills), Status: t.Status, StatusLabel: technicianStatusLabels[t.Status],
		User: emails[t.UserID], WIPLimit: t.WIPLimit, ClockedIn: t.ClockedIn, Hours: hoursLabel(t.WorkingHours)}
}

// hoursText is working hours as the edit form writes them: "" for the
// location's time, "none" for an empty list.
func hoursText(h []workshop.WeeklyHours) string {
	if h != nil && len(h) == 0 {
		return "none"
	}
	return workshop.FormatWorkingHours(h)
}

// hoursLabel is working hours as the page shows them.
func hoursLabel(h []workshop.WeeklyHours) string {
	switch {
	case h == nil:
		return "The location's opening hours"
	case len(h) == 0:
		return "No working time"
	}
	return workshop.FormatWorkingHours(h)
}

// technicianUsers are the users a technician may work as (the
// organisation's with the technician role), as options with chosen
// selected, and their emails by id.
func (a *App) technicianUsers(r *http.Request, d *desk, chosen string) ([]option, map[string]string, error) {
	users, err := a.store.UsersOfRole(r.Context(), d.si.Member.Org.ID, workshop.RoleTechnician)
	if err != nil {
		return nil, nil, err
	}
	opts, emails := make([]option, len(users)), map[string]string{}
	for i, u := range users {
		opts[i], emails[u.ID] = option{Value: u.ID, Label: u.Email, Checked: u.ID == chosen}, u.Email
	}
	return opts, emails, nil
}

func (a *App) technicians(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.resourceDesk(w, r, si, techniciansScopes, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	return a.renderTechnicians(w, r, d, http.StatusOK, nil)
}

// renderTechnicians writes the location's technicians with the create
// form (failed: as a refused create left it).
func (a *App) renderTechnicians(w http.ResponseWriter, r *http.Request, d *desk, status int, failed *form) error {
	list, err := a.store.Technicians(r.Context(), d.visibility(), workshop.PageRequest{Limit: listedLimit})
	if err != nil {
		return err
	}
	f := formOr(failed, map[string]string{"name": "", "skills": "", "wipLimit": strconv.Itoa(workshop.DefaultWIPLimit), "userId": ""})
	users, emails, err := a.technicianUsers(r, d, f.Values["userId"])
	if err != nil {
		return err
	}
	rows := make([]technicianRow, len(list.Data))
	for i, t := range list.Data {
		rows[i] = technicianRowOf(t, emails)
	}
	return a.render(w, r, status, "technicians", view{Header: d.header, Form: f, Data: map[string]any{
		"Location": d.loc, "Technicians": rows, "More": list.NextCursor != nil, "MayWrite": allows(d.si, techniciansScopes.write),
		"Users": users}})
}

func (a *App) createTechnician(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.resourceDesk(w, r, si, techniciansScopes, r.PathValue("locationID"))
	if err != nil {
		return err
	}
	f := formOf(r, technicianFields...)
	t := workshop.Technician{Name: f.Values["name"], Skills: listOf(f.Values["skills"]), Status: "available"}
	f.wholeNumber("wipLimit", wipMessage, &t.WIPLimit)
	f.invalid(workshop.CheckTechnician(t))
	if len(f.Errors) == 0 {
		t, err = a.op.CreateTechnician(r.Context(), operator.TechnicianRequest{LocationID: d.loc.ID, Name: t.Name, Skills: t.Skills,
			WIPLimit: t.WIPLimit, UserID: f.Values["userId"]})
	}
	return a.settle(w, r, err, &f, technicianAliases, technicianPath(t.ID), func(status int) error { return a.renderTechnicians(w, r, d, status, &f) })
}

// technicianForms are the forms of a technician's page a write failed on.
type technicianForms struct{ edit, status, remove, absence *form }

// technicianOf reads the technician of the path and the desk of its
// location; false: answered.
func (a *App) technicianOf(w http.ResponseWriter, r *http.Request, si *store.SignedIn) (*desk, workshop.Technician, error) {
	return recordOf(a, w, r, si, techniciansScopes, func(v store.Visibility) (workshop.Technician, error) {
		return a.store.Technician(r.Context(), v, r.PathValue("techID"))
	}, func(t workshop.Technician) string { return t.LocationID })
}

func (a *App) technicianPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, t, err := a.technicianOf(w, r, si)
	if err != nil {
		return err
	}
	return a.renderTechnician(w, r, d, t.ID, http.StatusOK, technicianForms{})
}

// renderTechnician writes a technician's page as the technician is now.
func (a *App) renderTechnician(w http.ResponseWriter, r *http.Request, d *desk, id string, status int, fs technicianForms) error {
	t, err := a.store.Technician(r.Context(), d.visibility(), id)
	if err != nil {
		return err
	}
	version := versionOf(t.UpdatedAt)
	edit := formOr(fs.edit, map[string]string{"name": t.Name, "skills": listText(t.Skills), "wipLimit": strconv.Itoa(t.WIPLimit),
		"userId": t.UserID, "workingHours": hoursText(t.WorkingHours), "updatedAt": version})
	users, emails, err := a.technicianUsers(r, d, edit.Values["userId"])
	if err != nil {
		return err
	}
	st := formOr(fs.status, map[string]string{"status": t.Status})
	st.Values["updatedAt"] = version // a status is set on what the page shows
	var statuses []option
	for _, s := range workshop.TechnicianStatuses {
		statuses = append(statuses, option{Value: s, Label: technicianStatusLabels[s], Checked: s == st.Values["status"]})
	}
	absences, err := a.absencesView(r, d, t, fs.absence)
	if err != nil {
		return err
	}
	return a.render(w, r, status, "technician", view{Header: d.header, Data: map[string]any{
		"Location": d.loc, "Technician": technicianRowOf(t, emails), "MayWrite": allows(d.si, techniciansScopes.write),
		"Edit": edit, "Users": users, "Status": st, "Statuses": statuses, "Remove": formOr(fs.remove, map[string]string{}),
		"Absences": absences}})
}

func (a *App) editTechnician(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, t, err := a.technicianOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, append(technicianFields, "workingHours", "updatedAt")...)
	e := store.TechnicianEdit{UpdatedAt: parseVersion(f.Values["updatedAt"]), Name: f.Values["name"], Skills: listOf(f.Values["skills"]),
		UserID: f.Values["userId"]}
	f.wholeNumber("wipLimit", wipMessage, &e.WIPLimit)
	e.WorkingHours, err = workshop.ParseWorkingHoursText(f.Values["workingHours"])
	f.invalid(err)
	if len(f.Errors) == 0 {
		_, err = a.store.EditTechnician(r.Context(), d.visibility(), t.ID, e, workshop.MicrosOf(a.now()))
	}
	return a.settle(w, r, err, &f, technicianAliases, technicianPath(t.ID), func(status int) error {
		return a.renderTechnician(w, r, d, t.ID, status, technicianForms{edit: &f})
	})
}

// technicianStatus sets the status as the API's PATCH does.
func (a *App) technicianStatus(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, t, err := a.technicianOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, "status", "updatedAt")
	if !slices.Contains(workshop.TechnicianStatuses, f.Values["status"]) {
		f.Errors["status"] = "Choose a status."
	} else {
		_, err = a.store.PatchTechnicianStatus(r.Context(), d.visibility(), t.ID, parseVersion(f.Values["updatedAt"]), f.Values["status"],
			workshop.MicrosOf(a.now()))
	}
	return a.settle(w, r, err, &f, nil, technicianPath(t.ID), func(status int) error {
		return a.renderTechnician(w, r, d, t.ID, status, technicianForms{status: &f})
	})
}

func (a *App) deleteTechnician(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, t, err := a.technicianOf(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r)
	err = a.store.DeleteUnusedTechnician(r.Context(), d.visibility(), t.ID)
	return a.settle(w, r, err, &f, nil, "/locations/"+d.loc.ID+"/technicians", func(status int) error {
		return a.renderTechnician(w, r, d, t.ID, status, technicianForms{remove: &f})
	})
}
