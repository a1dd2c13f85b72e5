package store_test

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// t0 is the instant the tests' clocks start at.
var t0 = time.Date(2026, 11, 21, 10, 15, 30, 123456000, time.UTC)

// clock is a movable clock for store.WithClock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a fresh store on a movable clock with one organisation, one of
// its locations and its owner.
type env struct {
	st   *store.Store
	clk  *clock
	org  workshop.Org
	loc  workshop.Location
	user workshop.User
}

func newEnv(t *testing.T, db storetest.Database) env {
	t.Helper()
	clk := newClock()
	st := storetest.Open(t, db.URL, append(slices.Clone(db.Options), store.WithClock(clk.Now))...)
	org := createOrg(t, st, workshop.PlanPro)
	return env{st: st, clk: clk, org: org, loc: createLocation(t, st, org.ID), user: createUser(t, st, org.ID, workshop.RoleOwner)}
}

func at(d time.Duration) workshop.Micros { return workshop.MicrosOf(t0.Add(d)) }

func createOrg(t *testing.T, st *store.Store, plan workshop.Plan) workshop.Org {
	t.Helper()
	o, err := st.CreateOrg(t.Context(), workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: "Acme Motors",
		PlanTier: plan, CreatedAt: at(0), UpdatedAt: at(0)})
	if err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	return o
}

func createLocation(t *testing.T, st *store.Store, orgID string) workshop.Location {
	t.Helper()
	l, err := st.CreateLocation(t.Context(), workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: orgID,
		Name: "Berlin", Timezone: "Europe/Berlin", CurrencyCode: "EUR", CreatedAt: at(0), UpdatedAt: at(0)}, workshop.DefaultSettings())
	if err != nil {
		t.Fatalf("CreateLocation: %v", err)
	}
	return l
}

func createUser(t *testing.T, st *store.Store, orgID string, role workshop.Role) workshop.User {
	t.Helper()
	id := workshop.NewID(workshop.PrefixUser)
	u, err := st.CreateUser(t.Context(), workshop.User{ID: id, OrgID: orgID, Email: id + "@example.com", Role: role,
		CreatedAt: at(0), UpdatedAt: at(0)})
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	return u
}

func createIntegration(t *testing.T, st *store.Store, orgID string, createdAt workshop.Micros) workshop.Integration {
	t.Helper()
	in, err := st.CreateIntegration(t.Context(), workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: orgID,
		Name: "DMS", SystemType: "dms", CreatedAt: createdAt, UpdatedAt: createdAt})
	if err != nil {
		t.Fatalf("CreateIntegration: %v", err)
	}
	return in
}

// wantCode fails the test unless err carries the code.
func wantCode(t *testing.T, err error, want workshop.Code) {
	t.Helper()
	if got := workshop.ErrorCode(err); got != want {
		t.Errorf("error = %v (code %s), want code %s", err, got, want)
	}
}

// wantInvalid fails the test unless err is a *workshop.Error
// validation_failed naming field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var e *workshop.Error
	if !errors.As(err, &e) {
		t.Errorf("error = %v (%T), want a *workshop.Error validation_failed on %q", err, err, field)
		return
	}
	if e.Code != workshop.CodeValidationFailed || e.Field != field {
		t.Errorf("error = code %s field %q, want code %s field %q", e.Code, e.Field, workshop.CodeValidationFailed, field)
	}
}

// latestMigration is the highest version among the dialect's migration
// files (NNNNN_name.sql): the version Open migrates to.
func latestMigration(t *testing.T, dialect string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("migrations", dialect, "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migration files of %s: %v, %v", dialect, files, err)
	}
	var latest int64
	for _, f := range files {
		prefix, _, _ := strings.Cut(filepath.Base(f), "_")
		v, err := strconv.ParseInt(prefix, 10, 64)
		if err != nil {
			t.Fatalf("migration file %s: %v", f, err)
		}
		latest = max(latest, v)
	}
	return latest
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	t.Parallel()
	storetest.EachEmpty(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		wantVersion := latestMigration(t, db.Name)

		// Several processes may start on a fresh database at once. On
		// PostgreSQL each one that finds goose's lock taken retries it 5 s
		// later, so two are enough there to keep the test fast.
		opens := 4
		if db.Name == "postgres" {
			opens = 2
		}
		stores := make([]*store.Store, opens)
		errs := make([]error, opens)
		var wg sync.WaitGroup
		for i := range opens {
			wg.Go(func() { stores[i], errs[i] = store.Open(ctx, db.URL) })
		}
		wg.Wait()
		for i, st := range stores {
			if errs[i] != nil {
				t.Fatalf("concurrent Open %d: %v", i, errs[i])
			}
			t.Cleanup(func() { st.Close() })
			if v, err := st.Migrate(ctx); err != nil || v != wantVersion {
				t.Errorf("concurrent Open %d: Migrate = %d, %v, want %d", i, v, err, wantVersion)
			}
			if got := st.Dialect(); got != db.Name {
				t.Errorf("Dialect = %q, want %q", got, db.Name)
			}
		}
		org := createOrg(t, stores[0], workshop.PlanPro)

		// Opening again keeps the schema and the data.
		again := storetest.Open(t, db.URL)
		if v, err := again.Migrate(ctx); err != nil || v != wantVersion {
			t.Errorf("reopened: Migrate = %d, %v, want %d", v, err, wantVersion)
		}
		if got, err := again.Org(ctx, org.ID); err != nil || got != org {
			t.Errorf("reopened: Org = %+v, %v, want %+v", got, err, org)
		}
		if err := again.Ping(ctx); err != nil {
			t.Errorf("Ping = %v", err)
		}

		// Each migration was applied once, however many processes started.
		var rows, versions int64
		if err := storetest.RawDB(t, db.URL).QueryRowContext(ctx,
			"SELECT COUNT(*), COUNT(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0").Scan(&rows, &versions); err != nil {
			t.Fatal(err)
		}
		if rows != versions {
			t.Errorf("goose_db_version has %d rows for %d versions, want each version once", rows, versions)
		}
	})
}

func TestOpenRefusesUnknownURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"mysql://localhost/db", "workshop.db", "sqlite://"} {
		if st, err := store.Open(t.Context(), u); err == nil {
			st.Close()
			t.Errorf("Open(%q) = nil error, want one", u)
		}
	}
}

func TestOrgCreateAndRead(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		st := storetest.Open(t, db.URL)
		want := workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: "Müller & Söhne GmbH",
			PlanTier: workshop.PlanStarter, CreatedAt: at(0), UpdatedAt: at(time.Second)}
		if got, err := st.CreateOrg(t.Context(), want); err != nil || got != want {
			t.Fatalf("CreateOrg = %+v, %v, want %+v", got, err, want)
		}
		if got, err := st.Org(t.Context(), want.ID); err != nil || got != want {
			t.Errorf("Org = %+v, %v, want %+v", got, err, want)
		}
	})
}

func TestSetOrgPlanGivesStrictlyLaterUpdatedAt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		clk := newClock() // never moves here: each case places updatedAt around it
		st := storetest.Open(t, db.URL, store.WithClock(clk.Now))
		now := workshop.MicrosOf(t0)
		for _, tc := range []struct {
			name   string
			before workshop.Micros // the org's updatedAt before the change
			want   workshop.Micros
		}{
			{"clock moved on", now - 3_600_000_000, now},
			{"clock stood still", now, now + 1},
			{"clock went back", now + 3_600_000_000, now + 3_600_000_001},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				org := workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: "Acme", PlanTier: workshop.PlanPro,
					CreatedAt: tc.before, UpdatedAt: tc.before}
				if _, err := st.CreateOrg(t.Context(), org); err != nil {
					t.Fatal(err)
				}
				got, err := st.SetOrgPlan(t.Context(), org.ID, workshop.PlanEnterprise)
				if err != nil {
					t.Fatal(err)
				}
				if got.PlanTier != workshop.PlanEnterprise {
					t.Errorf("PlanTier = %s, want %s", got.PlanTier, workshop.PlanEnterprise)
				}
				if got.UpdatedAt != tc.want {
					t.Errorf("UpdatedAt = %s, want %s (strictly after %s)", got.UpdatedAt, tc.want, tc.before)
				}
				if got.CreatedAt != org.CreatedAt || got.Name != org.Name {
					t.Errorf("SetOrgPlan changed other fields: %+v, was %+v", got, org)
				}
				if read, err := st.Org(t.Context(), org.ID); err != nil || read != got {
					t.Errorf("Org = %+v, %v, want %+v", read, err, got)
				}
				// The same plan again changes nothing, updatedAt included.
				if same, err := st.SetOrgPlan(t.Context(), org.ID, workshop.PlanEnterprise); err != nil || same != got {
					t.Errorf("SetOrgPlan(same plan) = %+v, %v, want %+v", same, err, got)
				}
			})
		}
	})
}

func TestLocations(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		st := storetest.Open(t, db.URL)
		orgA, orgB := createOrg(t, st, workshop.PlanPro), createOrg(t, st, workshop.PlanPro)
		mk := func(org string, name, tz, currency string, created workshop.Micros) workshop.Location {
			l := workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: org, Name: name, Timezone: tz,
				CurrencyCode: currency, CreatedAt: created, UpdatedAt: created + 5}
			got, err := st.CreateLocation(ctx, l, workshop.DefaultSettings())
			if err != nil || got != l {
				t.Fatalf("CreateLocation = %+v, %v, want %+v", got, err, l)
			}
			return l
		}
		// Created out of order: lists are ordered by (createdAt, id).
		a2 := mk(orgA.ID, "Queens", "America/New_York", "USD", at(time.Minute))
		a1 := mk(orgA.ID, "Berlin", "Europe/Berlin", "EUR", at(0))
		b1 := mk(orgB.ID, "Zürich", "Europe/Zurich", "CHF", at(0))

		if got, err := st.Location(ctx, orgA.ID, a1.ID); err != nil || got != a1 {
			t.Errorf("Location = %+v, %v, want %+v", got, err, a1)
		}
		if got, err := st.LocationByID(ctx, b1.ID); err != nil || got != b1 {
			t.Errorf("LocationByID = %+v, %v, want %+v", got, err, b1)
		}
		_, err := st.Location(ctx, orgA.ID, b1.ID)
		wantCode(t, err, workshop.CodeNotFound)

		for _, tc := range []struct {
			name        string
			org, onlyID string
			want        []workshop.Location
		}{
			{"every location of the org in order", orgA.ID, "", []workshop.Location{a1, a2}},
			{"only one", orgA.ID, a2.ID, []workshop.Location{a2}},
			{"only one of another org", orgA.ID, b1.ID, []workshop.Location{}},
			{"the other org", orgB.ID, "", []workshop.Location{b1}},
			{"unknown org", "org_missing", "", []workshop.Location{}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := st.Locations(ctx, tc.org, tc.onlyID)
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("Locations(%s, %q) = %+v, %v, want %+v", tc.org, tc.onlyID, got, err, tc.want)
				}
			})
		}
	})
}

func TestUsers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		st := storetest.Open(t, db.URL)
		org, other := createOrg(t, st, workshop.PlanPro), createOrg(t, st, workshop.PlanPro)
		for _, u := range []workshop.User{
			{Email: "owner@example.com", Role: workshop.RoleOwner},
			{Email: "advisor@example.com", Role: workshop.RoleAdvisor, DeveloperAccess: true},
			{Email: "tech@example.com", Role: workshop.RoleTechnician},
		} {
			u.ID, u.OrgID, u.CreatedAt, u.UpdatedAt = workshop.NewID(workshop.PrefixUser), org.ID, at(0), at(time.Millisecond)
			if got, err := st.CreateUser(ctx, u); err != nil || got != u {
				t.Fatalf("CreateUser = %+v, %v, want %+v", got, err, u)
			}
			if got, err := st.User(ctx, u.ID); err != nil || got != u {
				t.Errorf("User = %+v, %v, want %+v", got, err, u)
			}
		}

		dup := workshop.User{ID: workshop.NewID(workshop.PrefixUser), OrgID: org.ID, Email: "advisor@example.com",
			Role: workshop.RoleAdmin, CreatedAt: at(0), UpdatedAt: at(0)}
		_, err := st.CreateUser(ctx, dup)
		wantInvalid(t, err, "email")
		_, err = st.User(ctx, dup.ID)
		wantCode(t, err, workshop.CodeNotFound)

		// The same email in another organisation is another person.
		dup.OrgID = other.ID
		if _, err := st.CreateUser(ctx, dup); err != nil {
			t.Errorf("CreateUser(same email, other org) = %v, want nil", err)
		}
	})
}

func TestReadsOfMissingRecordsAreNotFound(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		other := createOrg(t, e.st, workshop.PlanPro)
		integ := createIntegration(t, e.st, e.org.ID, at(0))
		for _, tc := range []struct {
			name string
			call func(ctx context.Context, st *store.Store) error
		}{
			{"Org", func(ctx context.Context, st *store.Store) error { _, err := st.Org(ctx, "org_missing"); return err }},
			{"SetOrgPlan", func(ctx context.Context, st *store.Store) error {
				_, err := st.SetOrgPlan(ctx, "org_missing", workshop.PlanFree)
				return err
			}},
			{"Location", func(ctx context.Context, st *store.Store) error {
				_, err := st.Location(ctx, e.org.ID, "loc_missing")
				return err
			}},
			{"Location of another org", func(ctx context.Context, st *store.Store) error {
				_, err := st.Location(ctx, other.ID, e.loc.ID)
				return err
			}},
			{"LocationByID", func(ctx context.Context, st *store.Store) error {
				_, err := st.LocationByID(ctx, "loc_missing")
				return err
			}},
			{"User", func(ctx context.Context, st *store.Store) error { _, err := st.User(ctx, "usr_missing"); return err }},
			{"Integration", func(ctx context.Context, st *store.Store) error {
				_, err := st.Integration(ctx, e.org.ID, "int_missing")
				return err
			}},
			{"Integration of another org", func(ctx context.Context, st *store.Store) error {
				_, err := st.Integration(ctx, other.ID, integ.ID)
				return err
			}},
			{"CredentialByHash", func(ctx context.Context, st *store.Store) error {
				_, err := st.CredentialByHash(ctx, workshop.HashSecret("wsk_unknown"))
				return err
			}},
			{"RevokeCredential", func(ctx context.Context, st *store.Store) error {
				_, err := st.RevokeCredential(ctx, "key_missing")
				return err
			}},
			{"DeleteTechnician", func(ctx context.Context, st *store.Store) error { return st.DeleteTechnician(ctx, "tec_missing") }},
			{"DeleteBay", func(ctx context.Context, st *store.Store) error { return st.DeleteBay(ctx, "bay_missing") }},
			{"StartDayClose", func(ctx context.Context, st *store.Store) error {
				_, err := st.StartDayClose(ctx, store.DayCloseStart{LocationID: "loc_missing", BusinessDate: "2026-11-20"})
				return err
			}},
			{"FinishDayClose", func(ctx context.Context, st *store.Store) error {
				_, err := st.FinishDayClose(ctx, store.DayCloseFinish{LocationID: "loc_missing", Today: "2026-11-21"})
				return err
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				wantCode(t, tc.call(t.Context(), e.st), workshop.CodeNotFound)
			})
		}
	})
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		advisor := createUser(t, e.st, e.org.ID, workshop.RoleAdvisor)
		integ := createIntegration(t, e.st, e.org.ID, at(0))
		expires := at(30 * 24 * time.Hour)

		full := workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindAPIKey, OrgID: e.org.ID,
			UserID: advisor.ID, LocationID: e.loc.ID, IntegrationID: integ.ID,
			SecretHash: workshop.HashSecret(workshop.NewSecret(workshop.APIKeyPrefix)),
			Scopes:     []workshop.Scope{"jobs:read", "jobs:write"}, ExpiresAt: &expires, CreatedAt: at(time.Second)}
		bare := workshop.Credential{ID: workshop.NewID(workshop.PrefixKey), Kind: workshop.KindMCPToken, OrgID: e.org.ID,
			UserID: e.user.ID, SecretHash: workshop.HashSecret(workshop.NewSecret(workshop.MCPTokenPrefix)),
			Scopes: []workshop.Scope{"jobs:read"}, CreatedAt: at(2 * time.Second)}
		for _, tc := range []struct {
			name string
			cred workshop.Credential
			role workshop.Role
		}{
			{"location, integration and expiry", full, workshop.RoleAdvisor},
			{"org-wide MCP token without expiry", bare, workshop.RoleOwner},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got, err := e.st.CreateCredential(ctx, tc.cred); err != nil || !reflect.DeepEqual(got, tc.cred) {
					t.Fatalf("CreateCredential = %+v, %v, want %+v", got, err, tc.cred)
				}
				g, err := e.st.CredentialByHash(ctx, tc.cred.SecretHash)
				if err != nil {
					t.Fatal(err)
				}
				got := g.Credential
				got.SecretHash = tc.cred.SecretHash // looked up by it; not read back
				if !reflect.DeepEqual(got, tc.cred) {
					t.Errorf("CredentialByHash = %+v, want %+v", got, tc.cred)
				}
				if g.Role != tc.role || g.PlanTier != workshop.PlanPro {
					t.Errorf("role, plan = %s, %s, want %s, %s", g.Role, g.PlanTier, tc.role, workshop.PlanPro)
				}
			})
		}

		// The plan is the org's current plan, read on every lookup.
		for _, plan := range []workshop.Plan{workshop.PlanFree, workshop.PlanEnterprise} {
			if _, err := e.st.SetOrgPlan(ctx, e.org.ID, plan); err != nil {
				t.Fatal(err)
			}
			if g, err := e.st.CredentialByHash(ctx, full.SecretHash); err != nil || g.PlanTier != plan {
				t.Errorf("after SetOrgPlan(%s): PlanTier = %s, %v, want %s", plan, g.PlanTier, err, plan)
			}
		}

		// Revocation: the first time is kept.
		e.clk.Advance(time.Hour)
		first, err := e.st.RevokeCredential(ctx, full.ID)
		if want := workshop.MicrosOf(e.clk.Now()); err != nil || first != want {
			t.Fatalf("RevokeCredential = %s, %v, want %s", first, err, want)
		}
		e.clk.Advance(time.Hour)
		if again, err := e.st.RevokeCredential(ctx, full.ID); err != nil || again != first {
			t.Errorf("RevokeCredential again = %s, %v, want the first time %s", again, err, first)
		}
		if g, err := e.st.CredentialByHash(ctx, full.SecretHash); err != nil || g.RevokedAt == nil || *g.RevokedAt != first {
			t.Errorf("CredentialByHash after revoke: RevokedAt = %v, %v, want %s", g.RevokedAt, err, first)
		}
		if g, err := e.st.CredentialByHash(ctx, bare.SecretHash); err != nil || g.RevokedAt != nil {
			t.Errorf("another credential: RevokedAt = %v, %v, want nil", g.RevokedAt, err)
		}
		_, err = e.st.CredentialByHash(ctx, workshop.HashSecret("wsk_unknown"))
		wantCode(t, err, workshop.CodeNotFound)
	})
}

func TestIntegrationCreateAndRead(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := createOrg(t, e.st, workshop.PlanPro)
		want := workshop.Integration{ID: workshop.NewID(workshop.PrefixIntegration), OrgID: e.org.ID, Name: "Payroll",
			SystemType: "time_tracking", CreatedAt: at(0), UpdatedAt: at(time.Second)}
		if got, err := e.st.CreateIntegration(ctx, want); err != nil || got != want {
			t.Fatalf("CreateIntegration = %+v, %v, want %+v", got, err, want)
		}
		if got, err := e.st.Integration(ctx, e.org.ID, want.ID); err != nil || got != want {
			t.Errorf("Integration = %+v, %v, want %+v", got, err, want)
		}
		_, err := e.st.Integration(ctx, other.ID, want.ID)
		wantCode(t, err, workshop.CodeNotFound)
		page, err := e.st.Integrations(ctx, other.ID, workshop.PageRequest{Limit: workshop.DefaultPageLimit})
		if err != nil || len(page.Data) != 0 || page.NextCursor != nil {
			t.Errorf("Integrations(other org) = %+v, %v, want no rows and no next cursor", page, err)
		}
	})
}

// walkIntegrations lists every page of an org's integrations the way a
// client does: limit and the opaque cursor through ParsePageRequest.
// between runs after each page but the last.
func walkIntegrations(t *testing.T, st *store.Store, orgID string, limit int, between func(page int)) (ids []string, pages []int) {
	t.Helper()
	cursor := ""
	for range 100 {
		p, err := workshop.ParsePageRequest(&limit, cursor)
		if err != nil {
			t.Fatalf("ParsePageRequest(%d, %q): %v", limit, cursor, err)
		}
		page, err := st.Integrations(t.Context(), orgID, p)
		if err != nil {
			t.Fatalf("Integrations: %v", err)
		}
		if len(page.Data) > limit {
			t.Fatalf("page of %d rows, want at most limit %d", len(page.Data), limit)
		}
		for _, in := range page.Data {
			ids = append(ids, in.ID)
		}
		pages = append(pages, len(page.Data))
		if page.NextCursor == nil {
			return ids, pages
		}
		cursor = *page.NextCursor
		if between != nil {
			between(len(pages))
		}
	}
	t.Fatalf("no last page after 100 pages")
	return nil, nil
}

func sortedIDs(list []workshop.Integration) []string {
	list = slices.Clone(list)
	slices.SortFunc(list, func(a, b workshop.Integration) int {
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	var ids []string
	for _, in := range list {
		ids = append(ids, in.ID)
	}
	return ids
}

func TestIntegrationsPagination(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		// Ties on createdAt are ordered by id.
		var created []workshop.Integration
		for _, d := range []time.Duration{2 * time.Second, 0, time.Second, 0, time.Microsecond, time.Second, time.Second} {
			created = append(created, createIntegration(t, e.st, e.org.ID, at(d)))
		}
		want := sortedIDs(created)
		for _, tc := range []struct {
			limit int
			pages []int
		}{
			{1, []int{1, 1, 1, 1, 1, 1, 1}},
			{3, []int{3, 3, 1}},
			{6, []int{6, 1}},
			{7, []int{7}},
			{8, []int{7}},
			{workshop.MaxPageLimit, []int{7}},
		} {
			t.Run("limit "+strconv.Itoa(tc.limit), func(t *testing.T) {
				t.Parallel()
				got, pages := walkIntegrations(t, e.st, e.org.ID, tc.limit, nil)
				if !slices.Equal(got, want) {
					t.Errorf("ids = %v, want %v", got, want)
				}
				if !slices.Equal(pages, tc.pages) {
					t.Errorf("page sizes = %v, want %v", pages, tc.pages)
				}
			})
		}
	})
}

func TestIntegrationsPaginationWhileAdding(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		var existing []workshop.Integration
		for i := range 7 {
			existing = append(existing, createIntegration(t, e.st, e.org.ID, at(time.Duration(i%3)*time.Second)))
		}
		var added []string
		between := func(page int) {
			if page > 3 {
				return // stop adding so that the walk ends
			}
			// Rows made while the walk runs: one before the cursor, one tied
			// with the first rows, one after every existing row.
			for _, d := range []time.Duration{-time.Hour, 0, time.Hour + time.Duration(page)*time.Second} {
				added = append(added, createIntegration(t, e.st, e.org.ID, at(d)).ID)
			}
		}
		got, _ := walkIntegrations(t, e.st, e.org.ID, 3, between)

		seen := map[string]int{}
		for _, id := range got {
			seen[id]++
			if seen[id] > 1 {
				t.Errorf("row %s returned %d times", id, seen[id])
			}
		}
		for _, in := range existing {
			if seen[in.ID] != 1 {
				t.Errorf("existing row %s returned %d times, want once", in.ID, seen[in.ID])
			}
		}
		// What was returned is in (createdAt, id) order.
		if len(got) < len(existing) {
			t.Fatalf("walk returned %d rows, want at least %d", len(got), len(existing))
		}
		byID := map[string]workshop.Integration{}
		page, err := e.st.Integrations(t.Context(), e.org.ID, workshop.PageRequest{Limit: workshop.MaxPageLimit})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range page.Data {
			byID[in.ID] = in
		}
		var walked []workshop.Integration
		for _, id := range got {
			walked = append(walked, byID[id])
		}
		if want := sortedIDs(walked); !slices.Equal(got, want) {
			t.Errorf("walk order = %v, want (createdAt, id) order %v", got, want)
		}
		if n := len(page.Data); n != len(existing)+len(added) {
			t.Errorf("rows at the end = %d, want %d", n, len(existing)+len(added))
		}
	})
}

func TestSoftDelete(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range []struct {
			name   string
			create func(ctx context.Context) (string, error)
			del    func(ctx context.Context, id string) error
		}{
			{"technician", func(ctx context.Context) (string, error) {
				tec, err := e.st.CreateTechnician(ctx, workshop.Technician{ID: workshop.NewID(workshop.PrefixTechnician), OrgID: e.org.ID,
					LocationID: e.loc.ID, Name: "Jonas", Skills: []string{"brakes"}, WIPLimit: 2, Status: "available", CreatedAt: at(0), UpdatedAt: at(0)})
				return tec.ID, err
			}, e.st.DeleteTechnician},
			{"bay", func(ctx context.Context) (string, error) {
				b, err := e.st.CreateBay(ctx, workshop.Bay{ID: workshop.NewID(workshop.PrefixBay), OrgID: e.org.ID, LocationID: e.loc.ID,
					Name: "Bay 1", Equipment: []string{"lift"}, Services: []string{"OIL"}, Status: "available", CreatedAt: at(0), UpdatedAt: at(0)})
				return b.ID, err
			}, e.st.DeleteBay},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				id, err := tc.create(t.Context())
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				if err := tc.del(t.Context(), id); err != nil {
					t.Fatalf("delete = %v, want nil", err)
				}
				wantCode(t, tc.del(t.Context(), id), workshop.CodeNotFound)
			})
		}
	})
}

func TestCancelTags(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newEnv(t, db)
		other := createLocation(t, e.st, e.org.ID)
		for _, tags := range [][]workshop.CancelTag{
			{{Tag: "no_show", Label: "No show"}, {Tag: "customer_declined", Label: "Customer declined"}, {Tag: "parts_unavailable", Label: "Parts unavailable"}},
			{{Tag: "parts_unavailable", Label: "Teile fehlen"}, {Tag: "duplicate_booking", Label: "Duplicate booking"}},
			{},
		} {
			if got, err := e.st.SetCancelTags(ctx, e.loc.ID, tags); err != nil || !slices.Equal(got, tags) {
				t.Fatalf("SetCancelTags = %v, %v, want %v", got, err, tags)
			}
			if got, err := e.st.CancelTags(ctx, e.loc.ID); err != nil || !slices.Equal(got, tags) {
				t.Errorf("CancelTags = %v, %v, want %v (replaced, in set order)", got, err, tags)
			}
		}
		if got, err := e.st.CancelTags(ctx, other.ID); err != nil || got == nil || len(got) != 0 {
			t.Errorf("CancelTags(another location) = %#v, %v, want an empty list", got, err)
		}
	})
}

// TestSQLiteCommitsAreDurable checks the writer's settings that make an
// answered write survive a power cut: the write-ahead log, synced at every
// commit (synchronous FULL is 2).
func TestSQLiteCommitsAreDurable(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t, "sqlite://"+filepath.Join(t.TempDir(), "durable.db"))
	for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": "2"} {
		if got, err := st.WriterPragma(t.Context(), pragma); err != nil || got != want {
			t.Errorf("PRAGMA %s = %q, %v, want %q", pragma, got, err, want)
		}
	}
}
