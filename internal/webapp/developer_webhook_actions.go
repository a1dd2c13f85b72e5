package webapp

import (
	"net/http"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// The buttons of a webhook's page: pause and resume, rotate the secret,
// the test event, delete, redeliver.

// setWebhookActive pauses (isActive false) or resumes a registration: the
// state is sent, not toggled, so sending it twice changes nothing.
func (a *App) setWebhookActive(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	active := r.PostFormValue("isActive") == "true"
	wh, err := a.store.PatchWebhook(r.Context(), d.visibility(), r.PathValue("webhookID"), store.WebhookPatch{IsActive: &active},
		workshop.MicrosOf(a.now()))
	if err != nil {
		return d.refused(err)
	}
	http.Redirect(w, r, webhookPath(wh.ID), http.StatusSeeOther)
	return nil
}

// rotateWebhookSecret gives the registration a new signing secret, shown
// once; the next attempt of any delivery is signed with it, and with the
// old one for workshop.SecretOverlap (the store keeps it).
func (a *App) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	secret := workshop.NewSigningSecret()
	wh, err := a.store.PatchWebhook(r.Context(), d.visibility(), r.PathValue("webhookID"), store.WebhookPatch{SigningSecret: &secret},
		workshop.MicrosOf(a.now()))
	if err != nil {
		return d.refused(err)
	}
	return a.showSecret(w, r, d, secretView{Title: "Signing secret rotated", What: "Signing secret", Name: wh.URL, Secret: wh.SigningSecret,
		Back: webhookPath(wh.ID), BackLabel: "Back to the webhook"})
}

// pingWebhook sends the registration a test event (ping).
func (a *App) pingWebhook(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	id := r.PathValue("webhookID")
	if _, err := a.store.SendPing(r.Context(), d.visibility(), id, workshop.MicrosOf(a.now())); err != nil {
		return d.refused(err)
	}
	http.Redirect(w, r, webhookPath(id), http.StatusSeeOther)
	return nil
}

func (a *App) deleteWebhookPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	wh, err := a.store.Webhook(r.Context(), d.visibility(), r.PathValue("webhookID"))
	if err != nil {
		return d.refused(err)
	}
	return a.confirm(w, r, d, confirmView{Title: "Delete the webhook to " + wh.URL + "?",
		Text:   "Its deliveries still to be made are cancelled and its delivery log is deleted with it. This cannot be undone.",
		Action: r.URL.Path, Button: "Delete the webhook", Back: webhookPath(wh.ID)})
}

func (a *App) deleteWebhook(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	if err := a.store.DeleteWebhook(r.Context(), d.visibility(), r.PathValue("webhookID")); err != nil {
		return d.refused(err)
	}
	http.Redirect(w, r, webhooksPath, http.StatusSeeOther)
	return nil
}

// redeliver schedules a new attempt of a delivery now, as POST
// .../deliveries/{id}/redeliver does.
func (a *App) redeliver(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.devDeskOf(r, si, scopeWebhooksWrite)
	if err != nil {
		return err
	}
	id := r.PathValue("webhookID")
	if _, err := a.store.Redeliver(r.Context(), d.visibility(), id, r.PathValue("deliveryID"), workshop.MicrosOf(a.now())); err != nil {
		return d.refused(err)
	}
	http.Redirect(w, r, webhookPath(id), http.StatusSeeOther)
	return nil
}
