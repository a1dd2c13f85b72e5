package webapp

import (
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// developerRoutes serves the developer settings: keys, MCP tokens, webhooks (issue 20, part 5).
func (a *App) developerRoutes(mux *http.ServeMux) {
	mux.Handle("GET /developer", a.member(a.developerPage))
	mux.Handle("POST /developer/keys", a.member(a.createKey))
	mux.Handle("POST /developer/mcp-tokens", a.member(a.createMCPToken))
	mux.Handle("GET /developer/keys/{keyID}/revoke", a.member(a.revokeKeyPage))
	mux.Handle("POST /developer/keys/{keyID}/revoke", a.member(a.revokeKey))
	mux.Handle("GET /developer/webhooks", a.member(a.webhooksPage))
	mux.Handle("POST /developer/webhooks", a.member(a.createWebhook))
	mux.Handle("GET /developer/webhooks/{webhookID}", a.member(a.webhookPage))
	mux.Handle("POST /developer/webhooks/{webhookID}/edit", a.member(a.editWebhook))
	mux.Handle("POST /developer/webhooks/{webhookID}/active", a.member(a.setWebhookActive))
	mux.Handle("POST /developer/webhooks/{webhookID}/rotate", a.member(a.rotateWebhookSecret))
	mux.Handle("POST /developer/webhooks/{webhookID}/ping", a.member(a.pingWebhook))
	mux.Handle("GET /developer/webhooks/{webhookID}/delete", a.member(a.deleteWebhookPage))
	mux.Handle("POST /developer/webhooks/{webhookID}/delete", a.member(a.deleteWebhook))
	mux.Handle("POST /developer/webhooks/{webhookID}/deliveries/{deliveryID}/redeliver", a.member(a.redeliver))
	mux.Handle("GET /developer/integrations", a.member(a.integrationsPage))
	mux.Handle("POST /developer/integrations", a.member(a.createIntegration))
}

const (
	developerPath    = "/developer"
	webhooksPath     = "/developer/webhooks"
	integrationsPath = "/developer/integrations"

	noDeveloperAccess = "The developer settings need developer access. Ask an owner or an admin of your organisation for it."
	stampLayout       = "2 Jan 2006 15:04 UTC"
	secondsLayout     = "2 Jan 2006 15:04:05 UTC" // a delivery's times: retries are seconds apart
)

func webhookPath(id string) string { return webhooksPath + "/" + id }

// devDesk is a page of the developer settings as a user sees it.
type devDesk struct {
	si     *store.SignedIn
	header *header
}

func (d *devDesk) orgID() string { return d.si.Member.Org.ID }

// visibility is the organisation's: the settings are the organisation's,
// not a location's.
func (d *devDesk) visibility() store.Visibility { return store.Visibility{OrgID: d.orgID()} }

// devDeskOf reads what every page of the developer settings needs,
// or the error that stops it: 403
// without developer access, or without scope when one is asked ("": none).
func (a *App) devDeskOf(r *http.Request, si *store.SignedIn, scope workshop.Scope) (*devDesk, error) {
	h, err := a.headerOf(r, si, "")
	if err != nil {
		return nil, err
	}
	switch {
	case !si.Member.User.HasDeveloperAccess():
		return nil, messageError(http.StatusForbidden, h, "Refused", noDeveloperAccess)
	case scope != "" && !allows(si, scope):
		return nil, refused(h)
	}
	return &devDesk{si: si, header: h}, nil
}

// stamp shows a time of the developer settings: they belong to no
// location, so to no time zone but UTC.
func stamp(m *workshop.Micros) string { return stampAs(m, stampLayout) }

func stampAs(m *workshop.Micros, layout string) string {
	if m == nil {
		return ""
	}
	return m.Time().UTC().Format(layout)
}

// secretView is a page that shows a new secret once: a key, an MCP token
// or a webhook's signing secret.
type secretView struct {
	Title, What, Name, Secret string
	Snippet                   string // a ready configuration to copy, if any
	Back, BackLabel           string
}

// showSecret answers a create with the secret, once: it is in this
// response alone (no-store), never in a URL or the database, so the
// create is not followed by a redirect.
func (a *App) showSecret(w http.ResponseWriter, r *http.Request, d *devDesk, s secretView) error {
	return a.render(w, r, http.StatusOK, "developer_secret", view{Header: d.header, Data: s})
}

// confirmView is a page that asks before a write that cannot be undone.
type confirmView struct {
	Title, Text, Action, Button, Back string
}

func (a *App) confirm(w http.ResponseWriter, r *http.Request, d *devDesk, c confirmView) error {
	return a.render(w, r, http.StatusOK, "developer_confirm", view{Header: d.header, Data: c})
}

// refused is the error of a write the store refused: not found, or the
// message of a conflict under the page's header; a fault as it is.
func (d *devDesk) refused(err error) error {
	if workshop.ErrorCode(err) == workshop.CodeNotFound {
		return err
	}
	status, text, ok := refusalMessage(err)
	if !ok {
		return err
	}
	return messageError(status, d.header, "Not done", text)
}

// endOfDay is the expiry of a key valid through date (yyyy-mm-dd): the
// start of the next day, UTC.
func endOfDay(date string) (*time.Time, bool) {
	if date == "" {
		return nil, true
	}
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return nil, false
	}
	t = t.AddDate(0, 0, 1)
	return &t, true
}
