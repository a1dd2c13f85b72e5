package operator_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// now is the operator's clock in these tests: late evening in UTC, so that
// Berlin is already on the next day and New York is not.
var now = time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)

// env is an operator on a fresh database with an organisation, a location
// and an owner.
type env struct {
	st    *store.Store
	op    *operator.Operator
	org   operator.OrgOut
	loc   workshop.Location
	owner workshop.User
}

func newEnv(t *testing.T, db storetest.Database) env {
	t.Helper()
	st := storetest.Open(t, db.URL)
	op := operator.New(st)
	op.Now = func() time.Time { return now }
	e := env{st: st, op: op}
	e.org = e.createOrg(t)
	e.loc = e.createLocation(t, e.org.ID, "Europe/Berlin")
	e.owner = e.createUser(t, e.org.ID, workshop.RoleOwner, false)
	return e
}

func (e env) createOrg(t *testing.T) operator.OrgOut {
	t.Helper()
	o, err := e.op.CreateOrg(t.Context(), "Acme Motors", "")
	if err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	return o
}

func (e env) createLocation(t *testing.T, orgID, tz string) workshop.Location {
	t.Helper()
	l, err := e.op.CreateLocation(t.Context(), orgID, "Site", tz, "")
	if err != nil {
		t.Fatalf("CreateLocation: %v", err)
	}
	return l
}

func (e env) createUser(t *testing.T, orgID string, role workshop.Role, developer bool) workshop.User {
	t.Helper()
	u, err := e.op.CreateUser(t.Context(), orgID, strings.ToLower(workshop.NewID("u"))+"@example.com", role, developer)
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	return u
}

// wantInvalid fails the test unless err is validation_failed on field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var e *workshop.Error
	if !errors.As(err, &e) || e.Code != workshop.CodeValidationFailed || e.Field != field {
		t.Errorf("error = %v, want validation_failed on %q", err, field)
	}
}

func wantCode(t *testing.T, err error, want workshop.Code) {
	t.Helper()
	if got := workshop.ErrorCode(err); got != want {
		t.Errorf("error = %v (code %s), want code %s", err, got, want)
	}
}

func TestCreateOrg(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			name, orgName string
			plan          workshop.Plan
			want          workshop.Plan
			field         string // the refused field, "" when accepted
		}{
			{"default plan is pro", "Acme", "", workshop.PlanPro, ""},
			{"free", "Acme", workshop.PlanFree, workshop.PlanFree, ""},
			{"enterprise", "Acme", workshop.PlanEnterprise, workshop.PlanEnterprise, ""},
			{"unknown plan", "Acme", "gold", "", "plan"},
			{"blank name", "  ", workshop.PlanPro, "", "name"},
			{"name too long", strings.Repeat("x", 256), workshop.PlanPro, "", "name"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				got, err := e.op.CreateOrg(t.Context(), tc.orgName, tc.plan)
				if tc.field != "" {
					wantInvalid(t, err, tc.field)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(got.ID, workshop.PrefixOrg) || got.Name != tc.orgName || got.PlanTier != tc.want {
					t.Errorf("CreateOrg = %+v, want an org_ id, name %q, plan %s", got, tc.orgName, tc.want)
				}
				stored, err := e.st.Org(t.Context(), got.ID)
				if err != nil || stored.PlanTier != tc.want || stored.CreatedAt != workshop.MicrosOf(now) {
					t.Errorf("stored org = %+v, %v, want plan %s created at %s", stored, err, tc.want, workshop.MicrosOf(now))
				}
			})
		}
	})
}

func TestSetPlan(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		got, err := e.op.SetPlan(t.Context(), e.org.ID, workshop.PlanStarter)
		if want := (operator.OrgOut{ID: e.org.ID, Name: e.org.Name, PlanTier: workshop.PlanStarter}); err != nil || got != want {
			t.Errorf("SetPlan = %+v, %v, want %+v", got, err, want)
		}
		_, err = e.op.SetPlan(t.Context(), e.org.ID, "platinum")
		wantInvalid(t, err, "plan")
		_, err = e.op.SetPlan(t.Context(), "org_missing", workshop.PlanFree)
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestCreateLocation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			name, org, tz, currency string
			wantCurrency            string
			field                   string
		}{
			{"default currency EUR", e.org.ID, "Europe/Berlin", "", "EUR", ""},
			{"other currency", e.org.ID, "America/New_York", "USD", "USD", ""},
			{"UTC", e.org.ID, "UTC", "GBP", "GBP", ""},
			{"unknown zone", e.org.ID, "Mars/Olympus_Mons", "", "", "timezone"},
			{"empty zone", e.org.ID, "", "", "", "timezone"},
			{"Local is not a zone name", e.org.ID, "Local", "", "", "timezone"},
			{"offset instead of zone", e.org.ID, "+01:00", "", "", "timezone"},
			{"lower-case currency", e.org.ID, "Europe/Berlin", "eur", "", "currency"},
			{"long currency", e.org.ID, "Europe/Berlin", "EURO", "", "currency"},
			{"numeric currency", e.org.ID, "Europe/Berlin", "978", "", "currency"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				got, err := e.op.CreateLocation(t.Context(), tc.org, "Site", tc.tz, tc.currency)
				if tc.field != "" {
					wantInvalid(t, err, tc.field)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := workshop.Location{ID: got.ID, OrgID: e.org.ID, Name: "Site", Timezone: tc.tz, CurrencyCode: tc.wantCurrency,
					CreatedAt: workshop.MicrosOf(now), UpdatedAt: workshop.MicrosOf(now)}
				if got != want || !strings.HasPrefix(got.ID, workshop.PrefixLocation) {
					t.Errorf("CreateLocation = %+v, want %+v", got, want)
				}
				if stored, err := e.st.Location(t.Context(), e.org.ID, got.ID); err != nil || stored != want {
					t.Errorf("stored location = %+v, %v, want %+v", stored, err, want)
				}
			})
		}
		_, err := e.op.CreateLocation(t.Context(), "org_missing", "Site", "Europe/Berlin", "")
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			name, email string
			role        workshop.Role
			developer   bool
			field       string
		}{
			{"advisor with developer access", "advisor@example.com", workshop.RoleAdvisor, true, ""},
			{"technician", "tech@example.com", workshop.RoleTechnician, false, ""},
			{"not an email", "not-an-email", workshop.RoleAdmin, false, "email"},
			{"empty email", "", workshop.RoleAdmin, false, "email"},
			{"email with a display name", "Bob <bob@example.com>", workshop.RoleAdmin, false, "email"},
			{"unknown role", "boss@example.com", "boss", false, "role"},
			{"empty role", "nobody@example.com", "", false, "role"},
			{"email taken", e.owner.Email, workshop.RoleAdmin, false, "email"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				got, err := e.op.CreateUser(t.Context(), e.org.ID, tc.email, tc.role, tc.developer)
				if tc.field != "" {
					wantInvalid(t, err, tc.field)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := workshop.User{ID: got.ID, OrgID: e.org.ID, Email: tc.email, Role: tc.role, DeveloperAccess: tc.developer,
					CreatedAt: workshop.MicrosOf(now), UpdatedAt: workshop.MicrosOf(now)}
				if got != want || !strings.HasPrefix(got.ID, workshop.PrefixUser) {
					t.Errorf("CreateUser = %+v, want %+v", got, want)
				}
				if stored, err := e.st.User(t.Context(), got.ID); err != nil || stored != want {
					t.Errorf("stored user = %+v, %v, want %+v", stored, err, want)
				}
			})
		}
		_, err := e.op.CreateUser(t.Context(), "org_missing", "x@example.com", workshop.RoleAdmin, false)
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestCreateKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		admin := e.createUser(t, e.org.ID, workshop.RoleAdmin, false)
		devAdvisor := e.createUser(t, e.org.ID, workshop.RoleAdvisor, true)
		advisor := e.createUser(t, e.org.ID, workshop.RoleAdvisor, false)
		devTech := e.createUser(t, e.org.ID, workshop.RoleTechnician, true)
		otherOrg := e.createOrg(t)
		otherLoc := e.createLocation(t, otherOrg.ID, "Europe/Paris")
		integ, err := e.st.CreateIntegration(ctx, workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: e.org.ID,
			Name: "DMS", SystemType: "dms", CreatedAt: workshop.MicrosOf(now), UpdatedAt: workshop.MicrosOf(now)})
		if err != nil {
			t.Fatal(err)
		}
		otherInteg, err := e.st.CreateIntegration(ctx, workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: otherOrg.ID,
			Name: "DMS", SystemType: "dms", CreatedAt: workshop.MicrosOf(now), UpdatedAt: workshop.MicrosOf(now)})
		if err != nil {
			t.Fatal(err)
		}
		future, past := now.Add(90*24*time.Hour), now.Add(-time.Second)
		futureMicros := workshop.MicrosOf(future)

		if n := len(workshop.AllScopes); n != 16 {
			t.Fatalf("len(AllScopes) = %d, want 16 (contract section 3)", n)
		}
		if n := len(workshop.RoleAdvisor.Scopes()); n != 10 {
			t.Fatalf("advisor scopes = %d, want 10 (contract section 3)", n)
		}

		for _, tc := range []struct {
			name       string
			req        operator.KeyRequest
			wantScopes []workshop.Scope
			field      string // the refused field, "" when accepted
		}{
			{"owner without scopes gets every scope", operator.KeyRequest{UserID: e.owner.ID}, workshop.AllScopes, ""},
			{"admin without scopes gets every scope", operator.KeyRequest{UserID: admin.ID}, workshop.AllScopes, ""},
			{"advisor with developer access gets the advisor's scopes", operator.KeyRequest{UserID: devAdvisor.ID}, workshop.RoleAdvisor.Scopes(), ""},
			{"technician with developer access", operator.KeyRequest{UserID: devTech.ID}, []workshop.Scope{"jobs:read", "attendance:read"}, ""},
			{"scopes asked for, duplicates dropped", operator.KeyRequest{UserID: devAdvisor.ID, Scopes: "jobs:read, board:read,jobs:read"},
				[]workshop.Scope{"jobs:read", "board:read"}, ""},
			{"location of the org", operator.KeyRequest{UserID: e.owner.ID, LocationID: e.loc.ID}, workshop.AllScopes, ""},
			{"integration of the org", operator.KeyRequest{UserID: e.owner.ID, IntegrationID: integ.ID}, workshop.AllScopes, ""},
			{"future expiry", operator.KeyRequest{UserID: e.owner.ID, ExpiresAt: &future}, workshop.AllScopes, ""},
			{"scope beyond the role", operator.KeyRequest{UserID: devAdvisor.ID, Scopes: "jobs:read,webhooks:write"}, nil, "scopes"},
			{"technician asking for jobs:write", operator.KeyRequest{UserID: devTech.ID, Scopes: "jobs:write"}, nil, "scopes"},
			{"unknown scope", operator.KeyRequest{UserID: e.owner.ID, Scopes: "jobs:delete"}, nil, "scopes"},
			{"user without developer access", operator.KeyRequest{UserID: advisor.ID}, nil, "user"},
			{"location of another org", operator.KeyRequest{UserID: e.owner.ID, LocationID: otherLoc.ID}, nil, "location"},
			{"unknown location", operator.KeyRequest{UserID: e.owner.ID, LocationID: "loc_missing"}, nil, "location"},
			{"integration of another org", operator.KeyRequest{UserID: e.owner.ID, IntegrationID: otherInteg.ID}, nil, "integration"},
			{"expiry in the past", operator.KeyRequest{UserID: e.owner.ID, ExpiresAt: &past}, nil, "expires"},
			{"expiry now", operator.KeyRequest{UserID: e.owner.ID, ExpiresAt: &now}, nil, "expires"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				got, err := e.op.CreateKey(t.Context(), tc.req)
				if tc.field != "" {
					wantInvalid(t, err, tc.field)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(got.Key, workshop.APIKeyPrefix) || !strings.HasPrefix(got.ID, workshop.PrefixKey) {
					t.Errorf("key, id = %q, %q, want wsk_... and key_...", got.Key, got.ID)
				}
				if !slices.Equal(got.Scopes, tc.wantScopes) {
					t.Errorf("Scopes = %v, want %v", got.Scopes, tc.wantScopes)
				}
				if got.OrgID != e.org.ID || deref(got.LocationID) != tc.req.LocationID || deref(got.IntegrationID) != tc.req.IntegrationID {
					t.Errorf("org, location, integration = %s, %q, %q, want %s, %q, %q", got.OrgID, deref(got.LocationID),
						deref(got.IntegrationID), e.org.ID, tc.req.LocationID, tc.req.IntegrationID)
				}
				if tc.req.ExpiresAt != nil && (got.ExpiresAt == nil || *got.ExpiresAt != futureMicros) {
					t.Errorf("ExpiresAt = %v, want %s", got.ExpiresAt, futureMicros)
				}
				if tc.req.ExpiresAt == nil && got.ExpiresAt != nil {
					t.Errorf("ExpiresAt = %s, want none", got.ExpiresAt)
				}

				// Only the hash is stored, and it finds the key.
				g, err := e.st.CredentialByHash(t.Context(), workshop.HashSecret(got.Key))
				if err != nil {
					t.Fatalf("CredentialByHash(hash of the key): %v", err)
				}
				if g.ID != got.ID || g.Kind != workshop.KindAPIKey || g.UserID != tc.req.UserID || !slices.Equal(g.Scopes, tc.wantScopes) ||
					g.LocationID != tc.req.LocationID || g.IntegrationID != tc.req.IntegrationID {
					t.Errorf("stored credential = %+v, want key %s of user %s with scopes %v", g.Credential, got.ID, tc.req.UserID, tc.wantScopes)
				}
				var stored string
				if err := storetest.RawDB(t, db.URL).QueryRowContext(t.Context(),
					"SELECT secret_hash FROM credentials WHERE id = '"+got.ID+"'").Scan(&stored); err != nil {
					t.Fatal(err)
				}
				if stored != workshop.HashSecret(got.Key) {
					t.Errorf("stored secret_hash = %q, want the SHA-256 of the key", stored)
				}
				_, err = e.st.CredentialByHash(t.Context(), got.Key)
				wantCode(t, err, workshop.CodeNotFound)
			})
		}
		_, err = e.op.CreateKey(ctx, operator.KeyRequest{UserID: "usr_missing"})
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestCreateMCPToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		devTech := e.createUser(t, e.org.ID, workshop.RoleTechnician, true)
		advisor := e.createUser(t, e.org.ID, workshop.RoleAdvisor, false)
		var ownerReads []workshop.Scope
		for _, s := range workshop.AllScopes {
			if strings.HasSuffix(string(s), ":read") {
				ownerReads = append(ownerReads, s)
			}
		}
		for _, tc := range []struct {
			name  string
			user  string
			want  []workshop.Scope
			field string
		}{
			{"owner: every read scope", e.owner.ID, ownerReads, ""},
			{"technician with developer access", devTech.ID, []workshop.Scope{"jobs:read", "attendance:read"}, ""},
			{"user without developer access", advisor.ID, nil, "user"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				got, err := e.op.CreateMCPToken(t.Context(), tc.user)
				if tc.field != "" {
					wantInvalid(t, err, tc.field)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(got.Token, workshop.MCPTokenPrefix) || !strings.HasPrefix(got.ID, workshop.PrefixKey) {
					t.Errorf("token, id = %q, %q, want wsm_... and key_...", got.Token, got.ID)
				}
				g, err := e.st.CredentialByHash(t.Context(), workshop.HashSecret(got.Token))
				if err != nil {
					t.Fatal(err)
				}
				if g.ID != got.ID || g.Kind != workshop.KindMCPToken || g.UserID != tc.user || !slices.Equal(g.Scopes, tc.want) {
					t.Errorf("stored token = %+v, want an MCP token of %s with scopes %v", g.Credential, tc.user, tc.want)
				}
			})
		}
	})
}

func TestRevokeKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		key, err := e.op.CreateKey(ctx, operator.KeyRequest{UserID: e.owner.ID})
		if err != nil {
			t.Fatal(err)
		}
		first, err := e.op.RevokeKey(ctx, key.ID)
		if err != nil || first.ID != key.ID || first.RevokedAt == 0 {
			t.Fatalf("RevokeKey = %+v, %v, want the key revoked", first, err)
		}
		if again, err := e.op.RevokeKey(ctx, key.ID); err != nil || again != first {
			t.Errorf("RevokeKey again = %+v, %v, want %+v", again, err, first)
		}
		if g, err := e.st.CredentialByHash(ctx, workshop.HashSecret(key.Key)); err != nil || g.RevokedAt == nil || *g.RevokedAt != first.RevokedAt {
			t.Errorf("stored RevokedAt = %v, %v, want %s", g.RevokedAt, err, first.RevokedAt)
		}
		_, err = e.op.RevokeKey(ctx, "key_missing")
		wantCode(t, err, workshop.CodeNotFound)
	})
}

// A technician can be worked by one application user of the technician
// role in its organisation, who then finds it and its open steps.
func TestTechnicianWorkedByAUser(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		user, err := e.op.CreateUser(ctx, e.org.ID, "jonas@example.com", workshop.RoleTechnician, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{e.owner.ID, "usr_missing"} {
			_, err := e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: e.loc.ID, Name: "Jonas", WIPLimit: 2, UserID: id})
			wantInvalid(t, err, "user")
		}
		tec, err := e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: e.loc.ID, Name: "Jonas", WIPLimit: 2, UserID: user.ID})
		if err != nil {
			t.Fatal(err)
		}
		worksAs := func(email string) string {
			t.Helper()
			members, err := e.st.MembersByEmail(ctx, email)
			if err != nil || len(members) != 1 {
				t.Fatalf("MembersByEmail(%s) = %v, %v", email, members, err)
			}
			return members[0].TechnicianID
		}
		if got := worksAs(user.Email); got != tec.ID {
			t.Errorf("member works as %q, want %s", got, tec.ID)
		}
		_, err = e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: e.loc.ID, Name: "Jonas again", WIPLimit: 2, UserID: user.ID})
		wantInvalid(t, err, "user")
		if got := worksAs(e.owner.Email); got != "" {
			t.Errorf("the owner works as %q, want none", got)
		}
		if _, err := e.op.DeleteTechnician(ctx, tec.ID); err != nil {
			t.Fatal(err)
		}
		if got := worksAs(user.Email); got != "" {
			t.Errorf("member works as %q after the technician's deletion, want none", got)
		}
	})
}

func TestTechniciansAndBays(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		tec, err := e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: e.loc.ID, Name: "Jonas", WIPLimit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if tec.OrgID != e.org.ID || tec.LocationID != e.loc.ID || tec.Skills == nil || tec.Status != "available" || tec.WIPLimit != 2 {
			t.Errorf("CreateTechnician = %+v, want org %s, location %s, skills [], available, WIP 2", tec, e.org.ID, e.loc.ID)
		}
		for _, wip := range []int{0, 21} {
			_, err := e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: e.loc.ID, Name: "Jonas", WIPLimit: wip})
			wantInvalid(t, err, "wipLimit")
		}
		_, err = e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: e.loc.ID, Name: " ", WIPLimit: 2})
		wantInvalid(t, err, "name")
		_, err = e.op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: "loc_missing", Name: "Jonas", WIPLimit: 2})
		wantCode(t, err, workshop.CodeNotFound)

		bay, err := e.op.CreateBay(ctx, e.loc.ID, "Bay 1", []string{"lift"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bay.OrgID != e.org.ID || bay.Services == nil || !slices.Equal(bay.Equipment, []string{"lift"}) || bay.Status != "available" {
			t.Errorf("CreateBay = %+v, want equipment [lift], services [], available", bay)
		}

		for _, tc := range []struct {
			name string
			del  func() (operator.DeletedOut, error)
			id   string
		}{
			{"technician", func() (operator.DeletedOut, error) { return e.op.DeleteTechnician(ctx, tec.ID) }, tec.ID},
			{"bay", func() (operator.DeletedOut, error) { return e.op.DeleteBay(ctx, bay.ID) }, bay.ID},
		} {
			if got, err := tc.del(); err != nil || got != (operator.DeletedOut{ID: tc.id, Deleted: true}) {
				t.Errorf("delete %s = %+v, %v, want deleted", tc.name, got, err)
			}
			_, err := tc.del()
			wantCode(t, err, workshop.CodeNotFound)
		}
	})
}

func TestSetCancelTags(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			name  string
			args  []string
			want  []workshop.CancelTag
			field string
		}{
			{"labels made from tags, custom labels kept", []string{"parts_unavailable", "tag=Custom label", "no_show"},
				[]workshop.CancelTag{{Tag: "parts_unavailable", Label: "Parts unavailable"}, {Tag: "tag", Label: "Custom label"}, {Tag: "no_show", Label: "No show"}}, ""},
			{"blank label falls back", []string{"x9=  "}, []workshop.CancelTag{{Tag: "x9", Label: "X9"}}, ""},
			{"label with =", []string{"a=b=c"}, []workshop.CancelTag{{Tag: "a", Label: "b=c"}}, ""},
			{"no tags", nil, nil, "tags"},
			{"duplicate", []string{"no_show", "no_show"}, nil, "tags"},
			{"duplicate with labels", []string{"no_show=One", "no_show=Two"}, nil, "tags"},
			{"upper case", []string{"Parts"}, nil, "tags"},
			{"hyphen", []string{"parts-unavailable"}, nil, "tags"},
			{"leading underscore", []string{"_x"}, nil, "tags"},
			{"empty tag", []string{""}, nil, "tags"},
			{"label without tag", []string{"=Label"}, nil, "tags"},
			{"65 characters", []string{strings.Repeat("a", 65)}, nil, "tags"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				loc := e.createLocation(t, e.org.ID, "Europe/Berlin")
				got, err := e.op.SetCancelTags(t.Context(), loc.ID, tc.args)
				stored, serr := e.st.CancelTags(t.Context(), loc.ID)
				if serr != nil {
					t.Fatal(serr)
				}
				if tc.field != "" {
					wantInvalid(t, err, tc.field)
					if len(stored) != 0 {
						t.Errorf("stored tags after a refusal = %v, want none", stored)
					}
					return
				}
				if err != nil || !slices.Equal(got.Data, tc.want) {
					t.Errorf("SetCancelTags = %v, %v, want %v", got.Data, err, tc.want)
				}
				if !slices.Equal(stored, tc.want) {
					t.Errorf("CancelTags = %v, want %v", stored, tc.want)
				}
			})
		}
		_, err := e.op.SetCancelTags(t.Context(), "loc_missing", []string{"no_show"})
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestDayClose(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			tz, wantDate string
		}{
			{"Europe/Berlin", "2026-03-02"},    // 00:30 next day
			{"America/New_York", "2026-03-01"}, // 18:30
			{"Pacific/Kiritimati", "2026-03-02"},
			{"Pacific/Pago_Pago", "2026-03-01"},
			{"UTC", "2026-03-01"},
		} {
			t.Run(tc.tz, func(t *testing.T) {
				t.Parallel()
				loc := e.createLocation(t, e.org.ID, tc.tz)
				if got, err := e.op.StartDayClose(t.Context(), loc.ID); err != nil || got != (workshop.DayState{LocationID: loc.ID, State: workshop.DayClosing}) {
					t.Errorf("StartDayClose = %+v, %v, want closing", got, err)
				}
				want := workshop.DayState{LocationID: loc.ID, State: workshop.DayOpen, ClosedDate: tc.wantDate}
				if got, err := e.op.FinishDayClose(t.Context(), loc.ID); err != nil || got != want {
					t.Errorf("FinishDayClose = %+v, %v, want %+v", got, err, want)
				}
			})
		}
		_, err := e.op.StartDayClose(t.Context(), "loc_missing")
		wantCode(t, err, workshop.CodeNotFound)
		_, err = e.op.FinishDayClose(t.Context(), "loc_missing")
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestDemoIsIdempotent(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		st := storetest.Open(t, db.URL)
		op := operator.New(st)
		first, err := op.Demo(ctx)
		if err != nil {
			t.Fatalf("first Demo: %v", err)
		}
		if !first.Seeded || first.OrgID != operator.DemoOrgID || len(first.LocationIDs) != 2 || len(first.TechnicianIDs) != 5 || len(first.BayIDs) != 5 {
			t.Errorf("first Demo = %+v, want seeded org_demo with 2 locations, 5 technicians, 5 bays", first)
		}
		wantDemoDay(t, st, first, "first Demo")
		second, err := op.Demo(ctx)
		if err != nil {
			t.Fatalf("second Demo: %v", err)
		}
		if second.Seeded || second.OrgID != first.OrgID || !slices.Equal(second.LocationIDs, first.LocationIDs) || second.OwnerID != first.OwnerID {
			t.Errorf("second Demo = %+v, want Seeded false and the same ids as %+v", second, first)
		}
		wantDemoDay(t, st, first, "second Demo")
		for _, s := range [][2]string{{first.OrgKey, second.OrgKey}, {first.LocationKey, second.LocationKey}, {first.MCPToken, second.MCPToken}} {
			if s[0] == s[1] {
				t.Errorf("second Demo repeated the secret %s, want a fresh one", s[0])
			}
		}

		berlin := first.LocationIDs[0]
		for _, out := range []operator.DemoOut{first, second} {
			for _, tc := range []struct {
				secret   string
				kind     workshop.CredentialKind
				location string
			}{
				{out.OrgKey, workshop.KindAPIKey, ""},
				{out.LocationKey, workshop.KindAPIKey, berlin},
				{out.MCPToken, workshop.KindMCPToken, ""},
			} {
				g, err := st.CredentialByHash(ctx, workshop.HashSecret(tc.secret))
				if err != nil || g.Kind != tc.kind || g.LocationID != tc.location || g.OrgID != operator.DemoOrgID || g.UserID != out.OwnerID {
					t.Errorf("credential of %s = %+v, %v, want %s of %s at location %q", tc.secret, g.Credential, err, tc.kind, out.OwnerID, tc.location)
				}
			}
		}
		tags, err := st.CancelTags(ctx, berlin)
		if err != nil || len(tags) != 3 || tags[0].Tag != "customer_declined" {
			t.Errorf("demo Berlin cancel tags = %v, %v, want 3 starting with customer_declined", tags, err)
		}
	})
}
