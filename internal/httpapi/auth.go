package httpapi

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Credentials finds stored keys; the store reads the database on every
// call, so revocation and expiry hold on the very next request.
type Credentials interface {
	CredentialByHash(ctx context.Context, hash string) (store.CredentialGrant, error)
	// NoteCredentialUse records a use for the developer settings' "last
	// used", without holding the request up.
	NoteCredentialUse(id string, at time.Time)
}

// Authenticate resolves a bearer secret of the wanted kind to a principal:
// missing_key, invalid_key, key_expired or key_revoked otherwise. It is
// shared by the REST API (API keys) and the MCP endpoint (MCP tokens).
func Authenticate(ctx context.Context, creds Credentials, header string, want workshop.CredentialKind, now workshop.Micros) (*workshop.Principal, error) {
	name, placeholder := "key", "<key>"
	if want == workshop.KindMCPToken {
		name, placeholder = "MCP token (wsm_...)", "<wsm_...>"
	}
	if header == "" {
		return nil, workshop.Errorf(workshop.CodeMissingKey, "Send your %s as Authorization: Bearer %s.", name, placeholder)
	}
	scheme, secret, _ := strings.Cut(header, " ")
	secret = strings.TrimSpace(secret)
	if !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return nil, workshop.Errorf(workshop.CodeInvalidKey, "Authorization must use the Bearer scheme: Authorization: Bearer %s.", placeholder)
	}
	invalid := workshop.Errorf(workshop.CodeInvalidKey, "The %s is not valid.", name)
	if kind, ok := workshop.KindOfSecret(secret); !ok {
		return nil, invalid
	} else if kind != want {
		return nil, wrongKind(want)
	}
	g, err := creds.CredentialByHash(ctx, workshop.HashSecret(secret))
	if workshop.ErrorCode(err) == workshop.CodeNotFound || (err == nil && g.Kind != want) {
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	if g.RevokedAt != nil {
		return nil, workshop.Errorf(workshop.CodeKeyRevoked, "The %s was revoked at %s.", name, g.RevokedAt)
	}
	if g.ExpiresAt != nil && *g.ExpiresAt <= now {
		return nil, workshop.Errorf(workshop.CodeKeyExpired, "The %s expired at %s.", name, g.ExpiresAt)
	}
	creds.NoteCredentialUse(g.ID, now.Time())
	scopes := make([]workshop.Scope, 0, len(g.Scopes))
	for _, sc := range g.Scopes {
		if g.Role.Allows(sc) {
			scopes = append(scopes, sc)
		}
	}
	return &workshop.Principal{KeyID: g.ID, Kind: g.Kind, OrgID: g.OrgID, UserID: g.UserID, Role: g.Role,
		PlanTier: g.PlanTier, LocationID: g.LocationID, IntegrationID: g.IntegrationID, Scopes: scopes}, nil
}

// wrongKind is invalid_key for an API key at /mcp or an MCP token at /v1,
// saying which is which (the prefix alone tells, nothing is looked up).
func wrongKind(want workshop.CredentialKind) error {
	if want == workshop.KindMCPToken {
		return workshop.Errorf(workshop.CodeInvalidKey, "This is an API key (wsk_...), which the MCP endpoint does not take: send an MCP token (wsm_...).")
	}
	return workshop.Errorf(workshop.CodeInvalidKey, "This is an MCP token (wsm_...), which only the read-only AI connection at /mcp takes: send an API key (wsk_...).")
}

// authenticate makes sure a /v1 request carries a valid API key, and
// applies the key's rate limit.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := Authenticate(r.Context(), s.store, r.Header.Get("Authorization"), workshop.KindAPIKey, workshop.MicrosOf(s.now()))
		if err != nil {
			writeError(w, r, err)
			return
		}
		stateOf(r.Context()).principal = p
		if !s.limiter.allow(w, p.KeyID) {
			writeError(w, r, workshop.Errorf(workshop.CodeRateLimited, "This key's rate limit is used up; retry after the Retry-After seconds."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// access is what an operation requires of the caller.
type access struct {
	scope   workshop.Scope // "" when any valid key will do
	anyPlan bool           // the free plan may call it too
}

// operationAccess is every operation's requirement, in one table.
var operationAccess = map[string]access{
	"getMe":             {anyPlan: true},
	"listLocations":     {},
	"createIntegration": {scope: "integrations:write"},
	"listIntegrations":  {scope: "integrations:read"},
	"getIntegration":    {scope: "integrations:read"},

	"createJob":            {scope: "jobs:write"},
	"listJobs":             {scope: "jobs:read"},
	"getJob":               {scope: "jobs:read"},
	"patchJob":             {scope: "jobs:write"},
	"createStep":           {scope: "jobs:write"},
	"patchStep":            {scope: "jobs:write"},
	"deliverJob":           {scope: "jobs:write"},
	"cancelJob":            {scope: "jobs:write"},
	"listCancelReasonTags": {scope: "jobs:read"},

	"listTechnicians":     {scope: "technicians:read"},
	"getTechnician":       {scope: "technicians:read"},
	"patchTechnician":     {scope: "technicians:write"},
	"listBays":            {scope: "bays:read"},
	"getBay":              {scope: "bays:read"},
	"patchBay":            {scope: "bays:write"},
	"getBoard":            {scope: "board:read"},
	"getPlan":             {scope: "board:read"},
	"getAvailability":     {scope: "board:read"},
	"getAvailabilityDays": {scope: "board:read"},
	"getCapacity":         {scope: "board:read"},
	"applyPlan":           {scope: "jobs:write"},
	"previewPlan":         {scope: "board:read"},

	"createWebhook":            {scope: "webhooks:write"},
	"listWebhooks":             {scope: "webhooks:read"},
	"getWebhook":               {scope: "webhooks:read"},
	"patchWebhook":             {scope: "webhooks:write"},
	"deleteWebhook":            {scope: "webhooks:write"},
	"listWebhookDeliveries":    {scope: "webhooks:read"},
	"redeliverWebhookDelivery": {scope: "webhooks:write"},
	"listDeliveryAttempts":     {scope: "webhooks:read"},
	"listEvents":               {scope: "webhooks:read"},

	"getJobDetail":   {scope: "jobs:read"},
	"listAttendance": {scope: "attendance:read"},
	"clockIn":        {scope: "attendance:write"},
	"clockOut":       {scope: "attendance:write"},
	"listAbsences":   {scope: "attendance:read"},
	"createAbsence":  {scope: "attendance:write"},
	"deleteAbsence":  {scope: "attendance:write"},

	"listBayMaintenanceWindows": {scope: "bays:read"},
	"listMaintenanceWindows":    {scope: "bays:read"},
	"createMaintenanceWindow":   {scope: "bays:write"},
	"deleteMaintenanceWindow":   {scope: "bays:write"},
	"listCatalog":               {scope: "catalog:read"},
	"putCatalogItem":            {scope: "catalog:write"},
	"getWorkshopSettings":       {scope: "workshop:read"},
}

// authorize checks the plan and the scope of an operation.
func authorize(p *workshop.Principal, operationID string) error {
	a, ok := operationAccess[operationID]
	if !ok {
		return errors.New("operation " + operationID + " has no access rule")
	}
	if !a.anyPlan && !p.PlanTier.HasAPIAccess() {
		return workshop.Errorf(workshop.CodePlanUpgradeRequired, "API access is not part of the free plan; upgrade the organisation to use it.")
	}
	if a.scope != "" && !slices.Contains(p.Scopes, a.scope) {
		return p.Require(a.scope)
	}
	return nil
}
