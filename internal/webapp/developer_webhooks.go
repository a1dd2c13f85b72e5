package webapp

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Webhooks in the developer settings: the same store operations and
// checks as the API's /v1/platform/webhooks (the events of
// workshop.CheckWebhookEvents, the URL of the server's guard).

const (
	scopeWebhooksRead  = workshop.Scope("webhooks:read")
	scopeWebhooksWrite = workshop.Scope("webhooks:write")
	webhooksShown      = 200
	deliveriesShown    = 50
)

// webhookRow is a registration in a list or on its page.
type webhookRow struct {
	ID, URL, Location, Created, Updated string
	Events                              []string
	Active                              bool
	// Disabled, DisabledReason: set when the service disabled it for
	// failing (workshop.FailingDisables).
	Disabled, DisabledReason string
}

func webhookRowOf(wh workshop.Webhook, locName map[string]string) webhookRow {
	row := webhookRow{ID: wh.ID, URL: wh.URL, Events: wh.Events, Active: wh.IsActive, Location: "All locations",
		Created: stamp(&wh.CreatedAt), Updated: stamp(&wh.UpdatedAt), Disabled: stamp(wh.DisabledAt), DisabledReason: wh.DisabledReason}
	if wh.LocationID != "" {
		row.Location = locName[wh.LocationID]
	}
	return row
}

func (d *devDesk) locationNames() map[string]string {
	names := map[string]string{}
	for _, l := range d.header.Locations {
		names[l.ID] = l.Name
	}
	return names
}

// webhooksData is the list of registrations and the form of a new one.
type webhooksData struct {
	Webhooks          []webhookRow
	MayWrite          bool
	Events, Locations []option
}

var webhookFields = []string{"url", "locationId"}

func (a *App) webhooksPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksRead)
	if err != nil {
		return err
	}
	return a.renderWebhooks(w, r, d, http.StatusOK, nil, nil)
}

func (a *App) renderWebhooks(w http.ResponseWriter, r *http.Request, d *devDesk, status int, f *form, events []string) error {
	list, err := a.store.Webhooks(r.Context(), d.visibility(), workshop.PageRequest{Limit: webhooksShown})
	if err != nil {
		return err
	}
	names := d.locationNames()
	p := webhooksData{MayWrite: allows(d.si, scopeWebhooksWrite)}
	for _, wh := range list.Data {
		p.Webhooks = append(p.Webhooks, webhookRowOf(wh, names))
	}
	fv := formOr(f, map[string]string{"url": "", "locationId": ""})
	for _, e := range workshop.EventNames {
		p.Events = append(p.Events, option{Value: e, Label: e, Checked: slices.Contains(events, e)})
	}
	for _, l := range d.header.Locations {
		p.Locations = append(p.Locations, option{Value: l.ID, Label: l.Name, Checked: fv.Values["locationId"] == l.ID})
	}
	return a.render(w, r, status, "developer_webhooks", view{Header: d.header, Form: fv, Data: p})
}

// createWebhook registers a webhook as POST /v1/platform/webhooks does,
// for the organisation or one of its locations, and shows its signing
// secret once.
func (a *App) createWebhook(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	f := formOf(r, webhookFields...)
	events := r.PostForm["events"]
	f.Values["events"] = strings.Join(events, ",") // a group of checkboxes: its message goes beside the group
	url := strings.TrimSpace(f.Values["url"])
	checked, err := a.checkWebhook(r.Context(), f, url, events)
	if err != nil {
		return err
	}
	loc := f.Values["locationId"]
	if loc != "" && !slices.ContainsFunc(d.header.Locations, func(l workshop.Location) bool { return l.ID == loc }) {
		f.Errors["locationId"] = "Choose a location of your organisation, or all of them."
	}
	if len(f.Errors) > 0 {
		return a.renderWebhooks(w, r, d, http.StatusUnprocessableEntity, &f, events)
	}
	now := workshop.MicrosOf(a.now())
	wh, err := a.store.CreateWebhook(r.Context(), workshop.Webhook{ID: workshop.NewID(workshop.PrefixWebhook), OrgID: d.orgID(),
		LocationID: loc, URL: url, Events: checked, SigningSecret: workshop.NewSigningSecret(), IsActive: true,
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return err
	}
	return a.showSecret(w, r, d, secretView{Title: "Webhook created", What: "Signing secret", Name: wh.URL, Secret: wh.SigningSecret,
		Back: webhookPath(wh.ID), BackLabel: "Go to the webhook"})
}

// checkWebhook validates a registration's URL and events as the API does
// (workshop.CheckWebhookEvents, the server's guard), each message beside
// its field of f; it returns the events without repeats, and an error only
// for a fault of the server.
func (a *App) checkWebhook(ctx context.Context, f form, url string, events []string) ([]string, error) {
	checked, err := workshop.CheckWebhookEvents(events)
	f.invalid(err) // a validation error or none
	if err := a.guard.CheckRegistrationURL(ctx, url); err != nil && !f.invalid(err) {
		return nil, err
	}
	return checked, nil
}

// deliveryRow is a delivery in a registration's log.
type deliveryRow struct {
	ID, Event, Status, StatusLabel, LastCode, LastError, NextAttempt, Created string
	Attempts                                                                  int
}

var deliveryStatusLabels = map[string]string{workshop.DeliveryPending: "Pending", workshop.DeliverySucceeded: "Succeeded",
	workshop.DeliveryFailed: "Failed, will retry", workshop.DeliveryExhausted: "Failed, no retries left"}

// webhookData is a registration's page.
type webhookData struct {
	Webhook    webhookRow
	MayWrite   bool
	Edit       form // its URL and events, with the version they were read at
	Events     []option
	Deliveries []deliveryRow
	Shown      int
}

func (a *App) webhookPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksRead)
	if err != nil {
		return err
	}
	wh, err := a.store.Webhook(r.Context(), d.visibility(), r.PathValue("webhookID"))
	if err != nil {
		return d.refused(err)
	}
	return a.renderWebhook(w, r, d, wh, http.StatusOK, nil, nil)
}

// renderWebhook writes a registration's page as it is now, with the edit
// form an edit failed on (nil: made from the registration) and its events.
func (a *App) renderWebhook(w http.ResponseWriter, r *http.Request, d *devDesk, wh workshop.Webhook, status int, edit *form, events []string) error {
	list, err := a.store.RecentDeliveries(r.Context(), d.visibility(), wh.ID, deliveriesShown)
	if err != nil {
		return d.refused(err)
	}
	p := webhookData{Webhook: webhookRowOf(wh, d.locationNames()), MayWrite: allows(d.si, scopeWebhooksWrite), Shown: deliveriesShown}
	if edit == nil {
		events = wh.Events
	}
	p.Edit = formOr(edit, map[string]string{"url": wh.URL})
	p.Edit.Values["updatedAt"] = versionOf(wh.UpdatedAt) // a conflict shows the current version to send again
	for _, e := range workshop.EventNames {
		p.Events = append(p.Events, option{Value: e, Label: e, Checked: slices.Contains(events, e)})
	}
	for _, dl := range list {
		row := deliveryRow{ID: dl.ID, Event: dl.Event, Status: dl.Status, StatusLabel: deliveryStatusLabels[dl.Status],
			Attempts: dl.Attempts, NextAttempt: stampAs(dl.NextAttemptAt, secondsLayout), Created: stampAs(&dl.CreatedAt, secondsLayout),
			LastError: deref(dl.LastError)}
		if dl.LastStatusCode != nil {
			row.LastCode = strconv.Itoa(*dl.LastStatusCode)
		}
		p.Deliveries = append(p.Deliveries, row)
	}
	return a.render(w, r, status, "developer_webhook", view{Header: d.header, Data: p})
}

// editWebhook changes a registration's URL and events as PATCH
// /v1/platform/webhooks/{id} does, from the version the form was made
// from: a registration changed since is shown with its current values.
func (a *App) editWebhook(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	f := formOf(r, "url", "updatedAt")
	events := r.PostForm["events"]
	f.Values["events"] = strings.Join(events, ",") // a group of checkboxes: its message goes beside the group
	url := strings.TrimSpace(f.Values["url"])
	checked, err := a.checkWebhook(r.Context(), f, url, events)
	if err != nil {
		return err
	}
	status := http.StatusUnprocessableEntity
	if len(f.Errors) == 0 {
		version := parseVersion(f.Values["updatedAt"])
		wh, err := a.store.PatchWebhook(r.Context(), d.visibility(), r.PathValue("webhookID"),
			store.WebhookPatch{URL: &url, Events: checked, UpdatedAt: &version}, workshop.MicrosOf(a.now()))
		if err == nil {
			http.Redirect(w, r, webhookPath(wh.ID), http.StatusSeeOther)
			return nil
		}
		var known bool
		if status, known = f.refusal(err, nil); !known || status == http.StatusNotFound {
			return d.refused(err)
		}
	}
	wh, err := a.store.Webhook(r.Context(), d.visibility(), r.PathValue("webhookID"))
	if err != nil {
		return d.refused(err)
	}
	if status == http.StatusConflict { // stale: the form again with the current values, to change once more
		current := newForm(map[string]string{"url": wh.URL})
		current.Errors[""] = f.Errors[""]
		return a.renderWebhook(w, r, d, wh, status, current, wh.Events)
	}
	return a.renderWebhook(w, r, d, wh, status, &f, events)
}
