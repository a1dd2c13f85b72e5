package webapp

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// keyRow is a key or MCP token in a list.
type keyRow struct {
	ID, Name, Owner, Scopes, Location     string
	Integration                           string // the integration the key syncs for, if any
	Created, LastUsed, Expires, RevokedAt string
	Expired                               bool
}

// keyTable is a list of keys or of MCP tokens.
type keyTable struct {
	Rows  []keyRow
	Whole bool // the organisation's, with their users
	What  string
}

// developerData is the page of keys and MCP tokens.
type developerData struct {
	Keys, Tokens      keyTable
	WholeOrg          bool // an owner or admin sees every key of the organisation
	KeyForm           form
	TokenForm         form
	Scopes, Locations []option
	Integrations      []option // for a key that syncs as one of them (the role reads integrations)
	MCPURL            string
	Snippet           string // the MCP configuration with a placeholder token
	Plan              workshop.Plan
	NoAPI             bool // the plan has no API access: keys answer only GET /v1/platform/me
}

// keyFields are the new-key form's fields; tokenFields the new token's.
var (
	keyFields   = []string{"name", "locationId", "integrationId", "expires"}
	tokenFields = []string{"tokenName"}
)

func (a *App) developerPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, "")
	if err != nil {
		return err
	}
	return a.renderDeveloper(w, r, d, http.StatusOK, nil, nil, nil)
}

// renderDeveloper writes the page of keys and tokens, with the forms a
// create failed on (nil: blank) and the scopes it asked for.
func (a *App) renderDeveloper(w http.ResponseWriter, r *http.Request, d *devDesk, status int, keyForm, tokenForm *form, scopes []string) error {
	whole := isAdmin(d.si)
	owner := d.si.Member.User.ID
	if whole {
		owner = ""
	}
	p := developerData{WholeOrg: whole, Keys: keyTable{Whole: whole, What: "API keys"},
		Tokens: keyTable{Whole: whole, What: "MCP tokens"}, MCPURL: mcpURL(r),
		Plan: d.si.Member.Org.PlanTier, NoAPI: !d.si.Member.Org.PlanTier.HasAPIAccess()}
	p.Snippet = mcpSnippet(p.MCPURL, workshop.MCPTokenPrefix+"...")
	locName := d.locationNames()
	integrations, err := a.integrationsOf(r, d)
	if err != nil {
		return err
	}
	integName := map[string]string{}
	for _, in := range integrations {
		integName[in.ID] = in.Name
	}
	for kind, list := range map[workshop.CredentialKind]*[]keyRow{workshop.KindAPIKey: &p.Keys.Rows, workshop.KindMCPToken: &p.Tokens.Rows} {
		creds, err := a.store.Credentials(r.Context(), store.CredentialFilter{OrgID: d.orgID(), UserID: owner, Kind: kind})
		if err != nil {
			return err
		}
		for _, c := range creds {
			*list = append(*list, a.keyRowOf(c, locName, integName))
		}
	}
	p.KeyForm = formOr(keyForm, map[string]string{"name": "", "locationId": "", "integrationId": "", "expires": ""})
	p.TokenForm = formOr(tokenForm, map[string]string{"tokenName": ""})
	for _, s := range d.si.Member.User.Role.Scopes() {
		p.Scopes = append(p.Scopes, option{Value: string(s), Label: string(s), Checked: slices.Contains(scopes, string(s))})
	}
	for _, l := range d.header.Locations {
		p.Locations = append(p.Locations, option{Value: l.ID, Label: l.Name, Checked: p.KeyForm.Values["locationId"] == l.ID})
	}
	for _, in := range integrations {
		p.Integrations = append(p.Integrations, option{Value: in.ID, Label: in.Name + " (" + in.SystemType + ")",
			Checked: p.KeyForm.Values["integrationId"] == in.ID})
	}
	return a.render(w, r, status, "developer", view{Header: d.header, Data: p})
}

// integrationsOf is the organisation's integrations a key may be made for:
// none when the role does not read them.
func (a *App) integrationsOf(r *http.Request, d *devDesk) ([]workshop.Integration, error) {
	if !allows(d.si, scopeIntegrationsRead) {
		return nil, nil
	}
	list, err := a.store.Integrations(r.Context(), d.orgID(), workshop.PageRequest{Limit: integrationsShown})
	return list.Data, err
}

func (a *App) keyRowOf(c store.OwnedCredential, locName, integName map[string]string) keyRow {
	k := keyRow{ID: c.ID, Name: c.Name, Owner: c.UserEmail, Location: "All locations", Created: stamp(&c.CreatedAt),
		LastUsed: stamp(c.LastUsedAt), Expires: stamp(c.ExpiresAt), RevokedAt: stamp(c.RevokedAt),
		Expired: c.ExpiresAt != nil && *c.ExpiresAt <= workshop.MicrosOf(a.now())}
	scopes := make([]string, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = string(s)
	}
	k.Scopes = strings.Join(scopes, ", ")
	if c.LocationID != "" {
		k.Location = locName[c.LocationID]
	}
	if c.IntegrationID != "" {
		k.Integration = cmp.Or(integName[c.IntegrationID], c.IntegrationID)
	}
	return k
}

// createKey makes an API key with the operator's CreateKey, as `workshop
// admin key create` does: its scopes are checked against the user's role.
func (a *App) createKey(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, "")
	if err != nil {
		return err
	}
	f := formOf(r, keyFields...)
	scopes := r.PostForm["scopes"]
	f.Values["scopes"] = strings.Join(scopes, ",") // a group of checkboxes: its message goes beside the group
	var v workshop.Validation
	if strings.TrimSpace(f.Values["name"]) == "" {
		v.Add("name", "Give the key a name, to tell it from your others.")
	}
	if len(scopes) == 0 {
		v.Add("scopes", "Choose at least one scope.")
	}
	expires, valid := endOfDay(f.Values["expires"])
	if !valid {
		v.Add("expires", "Enter the expiry as a date, or leave it empty for none.")
	}
	err = v.Err()
	var out operator.KeyOut
	if err == nil {
		out, err = a.op.CreateKey(r.Context(), operator.KeyRequest{UserID: si.Member.User.ID, Name: f.Values["name"],
			LocationID: f.Values["locationId"], IntegrationID: f.Values["integrationId"], Scopes: f.Values["scopes"], ExpiresAt: expires})
	}
	if err != nil {
		status, ok := f.refusal(err, map[string]string{"location": "locationId", "integration": "integrationId"})
		if !ok {
			return err
		}
		return a.renderDeveloper(w, r, d, status, &f, nil, scopes)
	}
	return a.showSecret(w, r, d, secretView{Title: "API key created", What: "API key", Name: strings.TrimSpace(f.Values["name"]),
		Secret: out.Key, Back: developerPath, BackLabel: "Back to keys and tokens"})
}

// revocable reads a key or token the user may revoke: any of the
// organisation's for an owner or admin, their own for anyone else (others
// are not found).
func (a *App) revocable(r *http.Request, d *devDesk) (store.OwnedCredential, error) {
	c, err := a.store.Credential(r.Context(), d.orgID(), r.PathValue("keyID"))
	if err == nil && !isAdmin(d.si) && c.UserID != d.si.Member.User.ID {
		err = errNoSuchPage
	}
	return c, err
}

func (a *App) revokeKeyPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, "")
	if err != nil {
		return err
	}
	c, err := a.revocable(r, d)
	if err != nil {
		return err
	}
	what := "API key"
	if c.Kind == workshop.KindMCPToken {
		what = "MCP token"
	}
	name := c.Name
	if name == "" {
		name = c.ID
	}
	return a.confirm(w, r, d, confirmView{Title: "Revoke the " + what + " " + name + "?",
		Text:   "Every request made with it is refused from the next one on, on every server. This cannot be undone.",
		Action: r.URL.Path, Button: "Revoke " + name, Back: developerPath})
}

// revokeKey revokes with the operator's RevokeKey; the auth epoch makes it
// hold on the next request everywhere.
func (a *App) revokeKey(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, "")
	if err != nil {
		return err
	}
	c, err := a.revocable(r, d)
	if err != nil {
		return err
	}
	if _, err := a.op.RevokeKey(r.Context(), c.ID); err != nil {
		return d.refused(err)
	}
	http.Redirect(w, r, developerPath, http.StatusSeeOther)
	return nil
}
