package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	"github.com/oapi-codegen/nullable"
)

// page is one page of any list: {"data":[...],"nextCursor":...}.
type page[T any] struct {
	Data       []T                       `json:"data"`
	NextCursor nullable.Nullable[string] `json:"nextCursor"`
}

// listCall is a generated list operation (its *http.Response form).
type listCall[P any] func(ctx context.Context, params *P, editors ...RequestEditorFn) (*http.Response, error)

// walk yields every row of a list, page after page, following nextCursor:
// setCursor puts a cursor in the parameters (which params, nil for none,
// start from). An error is yielded once, with the zero row, and ends the
// sequence; breaking out of the loop reads no further page.
func walk[T, P any](ctx context.Context, params *P, setCursor func(*P, *string), call listCall[P]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var p P
		if params != nil {
			p = *params
		}
		for {
			pg, err := readPage[T](call(ctx, &p))
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, row := range pg.Data {
				if !yield(row, nil) {
					return
				}
			}
			if !pg.NextCursor.IsSpecified() || pg.NextCursor.IsNull() {
				return
			}
			next := pg.NextCursor.MustGet()
			setCursor(&p, &next)
		}
	}
}

func readPage[T any](resp *http.Response, err error) (page[T], error) {
	var pg page[T]
	if err != nil {
		return pg, err // an *APIError for an answer of 400 or more
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&pg); err != nil {
		return pg, fmt.Errorf("workshop client: a list page could not be read: %w", err)
	}
	return pg, nil
}

// Jobs lists the jobs params selects, every page; nil params: every job
// the key may see.
//
//	for job, err := range api.Jobs(ctx, nil) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(job.Id)
//	}
func (a *API) Jobs(ctx context.Context, params *ListJobsParams) iter.Seq2[Job, error] {
	return walk[Job](ctx, params, func(p *ListJobsParams, c *string) { p.Cursor = c }, a.ListJobs)
}

// Technicians lists technicians, every page.
func (a *API) Technicians(ctx context.Context, params *ListTechniciansParams) iter.Seq2[Technician, error] {
	return walk[Technician](ctx, params, func(p *ListTechniciansParams, c *string) { p.Cursor = c }, a.ListTechnicians)
}

// Bays lists bays, every page.
func (a *API) Bays(ctx context.Context, params *ListBaysParams) iter.Seq2[Bay, error] {
	return walk[Bay](ctx, params, func(p *ListBaysParams, c *string) { p.Cursor = c }, a.ListBays)
}

// Catalog lists catalog items, every page.
func (a *API) Catalog(ctx context.Context, params *ListCatalogParams) iter.Seq2[CatalogItem, error] {
	return walk[CatalogItem](ctx, params, func(p *ListCatalogParams, c *string) { p.Cursor = c }, a.ListCatalog)
}

// Attendance lists attendance records, every page.
func (a *API) Attendance(ctx context.Context, params *ListAttendanceParams) iter.Seq2[Attendance, error] {
	return walk[Attendance](ctx, params, func(p *ListAttendanceParams, c *string) { p.Cursor = c }, a.ListAttendance)
}

// Absences lists technicians' absences, every page.
func (a *API) Absences(ctx context.Context, params *ListAbsencesParams) iter.Seq2[Absence, error] {
	return walk[Absence](ctx, params, func(p *ListAbsencesParams, c *string) { p.Cursor = c }, a.ListAbsences)
}

// MaintenanceWindows lists bays' maintenance windows, every page.
func (a *API) MaintenanceWindows(ctx context.Context, params *ListMaintenanceWindowsParams) iter.Seq2[MaintenanceWindow, error] {
	return walk[MaintenanceWindow](ctx, params, func(p *ListMaintenanceWindowsParams, c *string) { p.Cursor = c }, a.ListMaintenanceWindows)
}

// BayMaintenanceWindows lists one bay's maintenance windows, every page.
func (a *API) BayMaintenanceWindows(ctx context.Context, bayID string, params *ListBayMaintenanceWindowsParams) iter.Seq2[MaintenanceWindow, error] {
	return walk[MaintenanceWindow](ctx, params, func(p *ListBayMaintenanceWindowsParams, c *string) { p.Cursor = c },
		func(ctx context.Context, p *ListBayMaintenanceWindowsParams, editors ...RequestEditorFn) (*http.Response, error) {
			return a.ListBayMaintenanceWindows(ctx, bayID, p, editors...)
		})
}

// Integrations lists integrations, every page.
func (a *API) Integrations(ctx context.Context, params *ListIntegrationsParams) iter.Seq2[Integration, error] {
	return walk[Integration](ctx, params, func(p *ListIntegrationsParams, c *string) { p.Cursor = c }, a.ListIntegrations)
}

// Webhooks lists webhook registrations, every page.
func (a *API) Webhooks(ctx context.Context, params *ListWebhooksParams) iter.Seq2[Webhook, error] {
	return walk[Webhook](ctx, params, func(p *ListWebhooksParams, c *string) { p.Cursor = c }, a.ListWebhooks)
}

// Events lists recent events, every page.
func (a *API) Events(ctx context.Context, params *ListEventsParams) iter.Seq2[Event, error] {
	return walk[Event](ctx, params, func(p *ListEventsParams, c *string) { p.Cursor = c }, a.ListEvents)
}

// WebhookDeliveries lists a registration's deliveries, every page.
func (a *API) WebhookDeliveries(ctx context.Context, webhookID string, params *ListWebhookDeliveriesParams) iter.Seq2[Delivery, error] {
	return walk[Delivery](ctx, params, func(p *ListWebhookDeliveriesParams, c *string) { p.Cursor = c },
		func(ctx context.Context, p *ListWebhookDeliveriesParams, editors ...RequestEditorFn) (*http.Response, error) {
			return a.ListWebhookDeliveries(ctx, webhookID, p, editors...)
		})
}
