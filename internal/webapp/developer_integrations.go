package webapp

import (
	"net/http"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Integrations in the developer settings: the external systems a key can
// be made for, registered as POST /v1/platform/integrations does.

const (
	scopeIntegrationsRead  = workshop.Scope("integrations:read")
	scopeIntegrationsWrite = workshop.Scope("integrations:write")
	integrationsShown      = 200
	maxIntegrationName     = 255 // the API's maxLength
)

// integrationsData is the list of integrations and the form of a new one.
type integrationsData struct {
	Integrations []integrationRow
	MayWrite     bool
	Types        []option
}

type integrationRow struct{ ID, Name, SystemType, Created string }

var integrationFields = []string{"name", "systemType"}

func (a *App) integrationsPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeIntegrationsRead)
	if err != nil {
		return err
	}
	return a.renderIntegrations(w, r, d, http.StatusOK, nil)
}

func (a *App) renderIntegrations(w http.ResponseWriter, r *http.Request, d *devDesk, status int, f *form) error {
	list, err := a.store.Integrations(r.Context(), d.orgID(), workshop.PageRequest{Limit: integrationsShown})
	if err != nil {
		return err
	}
	p := integrationsData{MayWrite: allows(d.si, scopeIntegrationsWrite)}
	for _, in := range list.Data {
		p.Integrations = append(p.Integrations, integrationRow{ID: in.ID, Name: in.Name, SystemType: in.SystemType, Created: stamp(&in.CreatedAt)})
	}
	fv := formOr(f, map[string]string{"name": "", "systemType": ""})
	for _, t := range workshop.SystemTypes {
		p.Types = append(p.Types, option{Value: t, Label: t, Checked: fv.Values["systemType"] == t})
	}
	return a.render(w, r, status, "developer_integrations", view{Header: d.header, Form: fv, Data: p})
}

func (a *App) createIntegration(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeIntegrationsWrite)
	if err != nil {
		return err
	}
	f := formOf(r, integrationFields...)
	name := strings.TrimSpace(f.Values["name"])
	var v workshop.Validation
	if n := len([]rune(name)); n == 0 || n > maxIntegrationName {
		v.Add("name", "Give a name of 1 to %d characters.", maxIntegrationName)
	}
	if !slices.Contains(workshop.SystemTypes, f.Values["systemType"]) {
		v.Add("systemType", "Choose the kind of system.")
	}
	if f.invalid(v.Err()) {
		return a.renderIntegrations(w, r, d, http.StatusUnprocessableEntity, &f)
	}
	now := workshop.MicrosOf(a.now())
	if _, err := a.store.CreateIntegration(r.Context(), workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration),
		OrgID: d.orgID(), Name: name, SystemType: f.Values["systemType"], CreatedAt: now, UpdatedAt: now}); err != nil {
		return err
	}
	http.Redirect(w, r, integrationsPath, http.StatusSeeOther)
	return nil
}
