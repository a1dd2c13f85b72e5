package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The import of a group's setup (workshop admin import, contract section
// 10): one location a transaction, matched by name within its
// organisation, its technicians and bays by name, its catalog by service
// code. It creates and updates, never deletes, and writes through the same
// statements as the application's edits (so the same events, none for
// these records, and the same promise-watch versions).

// LocationImport is one location of the document, validated. Each Merge
// puts the document's fields over a record's current ones (a new record's:
// its defaults).
type LocationImport struct {
	OrgID    string
	Name     string
	Timezone string
	Currency string // "" keeps the current one (EUR for a new location)
	Settings func(workshop.Settings) workshop.Settings
	// CancelTags, when not nil, are the location's active tags in order.
	CancelTags  []workshop.CancelTag
	Technicians []EntryImport[workshop.Technician]
	Bays        []EntryImport[workshop.Bay]
	Catalog     []EntryImport[workshop.CatalogItem]
	Now         workshop.Micros
	DryRun      bool // everything is done and then rolled back
}

// EntryImport is a technician, bay or catalog item of the document: the
// record to create when there is none, and how it changes one there is.
type EntryImport[T any] struct {
	New   T
	Merge func(cur T) T
}

// Import actions.
const (
	ImportCreated   = "created"
	ImportUpdated   = "updated"
	ImportUnchanged = "unchanged"
)

// LocationImported is what an import did (or, dry, would do): the
// location's action and each entry's, in the document's order.
type LocationImported struct {
	LocationID  string
	Location    string
	Technicians []string
	Bays        []string
	Catalog     []string
}

// ImportFieldError is an entry the database refuses: its kind
// ("technicians", "bays", "catalog"; "" for the location), its index and
// the validation error.
type ImportFieldError struct {
	Kind  string
	Index int
	Err   error
}

func (e *ImportFieldError) Error() string { return fmt.Sprintf("%s[%d]: %v", e.Kind, e.Index, e.Err) }
func (e *ImportFieldError) Unwrap() error { return e.Err }

var errDryRun = errors.New("dry run")

// ImportLocation creates or updates one location as the document says, in
// one transaction. The organisation's row is locked first, so that two
// imports never both create a location of one name.
func (s *Store) ImportLocation(ctx context.Context, in LocationImport) (LocationImported, error) {
	var out LocationImported
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		var err error
		out, err = s.importLocation(ctx, c, in)
		if err == nil && in.DryRun {
			err = errDryRun
		}
		return struct{}{}, err
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	return out, err
}

func (s *Store) importLocation(ctx context.Context, c conn, in LocationImport) (LocationImported, error) {
	var out LocationImported
	lock := ""
	if s.dialect == postgresDialect {
		lock = " FOR NO KEY UPDATE"
	}
	var orgID string
	if err := c.queryRow(ctx, `SELECT id FROM orgs WHERE id = ?`+lock, in.OrgID).Scan(&orgID); err != nil {
		return out, notFoundOr(err, "organisation")
	}
	found, err := queryAll(ctx, c, scanLocation, `SELECT `+locationColumns+` FROM locations WHERE org_id = ? AND name = ?`, in.OrgID, in.Name)
	if err != nil {
		return out, err
	}
	fieldErr := func(kind string, i int, err error) error { return &ImportFieldError{Kind: kind, Index: i, Err: err} }
	if len(found) > 1 {
		return out, fieldErr("", 0, workshop.Invalid("name", "The organisation has %d locations named %q: rename all but one to import it.", len(found), in.Name))
	}
	if len(found) == 0 {
		currency := in.Currency
		if currency == "" {
			currency = "EUR"
		}
		l := workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: in.OrgID, Name: in.Name, Timezone: in.Timezone,
			CurrencyCode: currency, CreatedAt: in.Now, UpdatedAt: in.Now}
		st := in.Settings(workshop.DefaultSettings())
		if err := workshop.ValidateSettings(st); err != nil {
			return out, fieldErr("", 0, err)
		}
		if err := insertLocation(ctx, c, l, st); err != nil {
			return out, err
		}
		out.LocationID, out.Location = l.ID, ImportCreated
		if in.CancelTags != nil {
			if err := replaceCancelTags(ctx, c, l.ID, in.CancelTags); err != nil {
				return out, err
			}
		}
	} else {
		l := found[0]
		out.LocationID = l.ID
		changed, err := s.importLocationFields(ctx, c, l, in)
		if err != nil {
			return out, err
		}
		out.Location = ImportUnchanged
		if changed {
			out.Location = ImportUpdated
		}
	}
	if out.Technicians, err = importEntries(ctx, c, out.LocationID, in.Technicians, technicianImport); err != nil {
		return out, err
	}
	if out.Bays, err = importEntries(ctx, c, out.LocationID, in.Bays, bayImport); err != nil {
		return out, err
	}
	out.Catalog, err = importEntries(ctx, c, out.LocationID, in.Catalog, catalogImport)
	return out, err
}

// importLocationFields updates an existing location's name fields,
// settings and cancel tags; it tells whether anything changed.
func (s *Store) importLocationFields(ctx context.Context, c conn, l workshop.Location, in LocationImport) (bool, error) {
	fieldErr := func(err error) error { return &ImportFieldError{Err: err} }
	if err := checkZoneChange(ctx, c, l, in.Timezone, "Change it in the application, which asks for a confirmation."); err != nil {
		return false, fieldErr(err)
	}
	currency := in.Currency
	if currency == "" {
		currency = l.CurrencyCode
	}
	edited, err := editLocation(ctx, c, l, LocationEdit{Name: l.Name, Timezone: in.Timezone, Currency: currency}, in.Now)
	if err != nil {
		return false, err
	}
	changed := edited.UpdatedAt != l.UpdatedAt
	cur, err := s.settingsIn(ctx, c, l.ID)
	if err != nil {
		return false, err
	}
	next := in.Settings(cur)
	if err := workshop.ValidateSettings(next); err != nil {
		return false, fieldErr(err)
	}
	if !sameSettings(cur, next) {
		changed = true
		if err := putSettings(ctx, c, l.ID, next); err != nil {
			return false, err
		}
	}
	if in.CancelTags != nil {
		tags, err := queryAll(ctx, c, func(sc scanner) (tagLabel, error) {
			var t tagLabel
			return t, sc.Scan(&t.Tag, &t.Label)
		}, `SELECT tag, label FROM cancel_tags WHERE location_id = ? AND retired_at IS NULL ORDER BY position, tag`, l.ID)
		if err != nil {
			return false, err
		}
		if !slices.EqualFunc(tags, in.CancelTags, func(a tagLabel, b workshop.CancelTag) bool { return a.Tag == b.Tag && a.Label == b.Label }) {
			changed = true
			if err := replaceCancelTags(ctx, c, l.ID, in.CancelTags); err != nil {
				return false, err
			}
		}
	}
	return changed, nil
}

type tagLabel struct{ Tag, Label string }

// queryAll runs a query in the transaction and scans every row.
func queryAll[T any](ctx context.Context, c conn, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := c.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scan)
}

// settingsIn reads a location's settings in a write's transaction.
func (s *Store) settingsIn(ctx context.Context, c conn, locationID string) (workshop.Settings, error) {
	var hours, breaks, planning string
	var buffer int
	var confidence float64
	err := c.queryRow(ctx, `SELECT operating_hours, breaks, bay_buffer_minutes, planning_durations, promise_confidence
		FROM workshop_settings WHERE location_id = ?`+s.forUpdate(), locationID).Scan(&hours, &breaks, &buffer, &planning, &confidence)
	if err != nil {
		return workshop.Settings{}, notFoundOr(err, "location")
	}
	st, err := s.settings.parse(hours, breaks, buffer)
	st.PlanningDurations, st.PromiseConfidence = planning, confidence
	return st, err
}

func sameSettings(a, b workshop.Settings) bool {
	return slices.Equal(a.OperatingHours, b.OperatingHours) && slices.Equal(a.Breaks, b.Breaks) && a.BayBufferMinutes == b.BayBufferMinutes &&
		a.PlanningDurations == b.PlanningDurations && a.PromiseConfidence == b.PromiseConfidence
}

// entryKind is how the import reads, creates and updates one kind of
// record of a location.
type entryKind[T any] struct {
	kind   string
	read   func(ctx context.Context, c conn, locationID string) (map[string][]T, error) // by the key the document matches on
	key    func(T) string
	same   func(a, b T) bool
	create func(ctx context.Context, c conn, locationID string, rec T) error
	update func(ctx context.Context, c conn, cur, next T, now workshop.Micros) error
	check  func(T) error
	now    func(T) workshop.Micros
}

func importEntries[T any](ctx context.Context, c conn, locationID string, entries []EntryImport[T], k entryKind[T]) ([]string, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	existing, err := k.read(ctx, c, locationID)
	if err != nil {
		return nil, err
	}
	actions := make([]string, len(entries))
	for i, e := range entries {
		key := k.key(e.New)
		cur := existing[key]
		switch {
		case len(cur) > 1:
			return nil, &ImportFieldError{Kind: k.kind, Index: i, Err: workshop.Invalid(k.keyField(), "The location has %d records named %q: rename all but one to import it.", len(cur), key)}
		case len(cur) == 0:
			if err := k.create(ctx, c, locationID, e.New); err != nil {
				return nil, err
			}
			actions[i] = ImportCreated
		default:
			next := e.Merge(cur[0])
			if err := k.check(next); err != nil {
				return nil, &ImportFieldError{Kind: k.kind, Index: i, Err: err}
			}
			if k.same(cur[0], next) {
				actions[i] = ImportUnchanged
				continue
			}
			if err := k.update(ctx, c, cur[0], next, k.now(e.New)); err != nil {
				return nil, err
			}
			actions[i] = ImportUpdated
		}
	}
	return actions, nil
}

func (k entryKind[T]) keyField() string {
	if k.kind == "catalog" {
		return "serviceCode"
	}
	return "name"
}

func byKey[T any](list []T, key func(T) string) map[string][]T {
	m := make(map[string][]T, len(list))
	for _, r := range list {
		m[key(r)] = append(m[key(r)], r)
	}
	return m
}

var technicianImport = entryKind[workshop.Technician]{
	kind: "technicians",
	read: func(ctx context.Context, c conn, locationID string) (map[string][]workshop.Technician, error) {
		list, err := queryAll(ctx, c, technicianKind.scan, `SELECT `+technicianKind.columns+` FROM technicians t
			WHERE t.location_id = ? AND t.deleted_at IS NULL`+c.s.forUpdateOf("t"), locationID)
		return byKey(list, func(t workshop.Technician) string { return t.Name }), err
	},
	key: func(t workshop.Technician) string { return t.Name },
	same: func(a, b workshop.Technician) bool {
		return a.Name == b.Name && slices.Equal(a.Skills, b.Skills) && a.WIPLimit == b.WIPLimit && sameHours(a.WorkingHours, b.WorkingHours)
	},
	create: func(ctx context.Context, c conn, locationID string, t workshop.Technician) error {
		t.ID, t.LocationID = workshop.NewID(workshop.PrefixTechnician), locationID
		return insertTechnician(ctx, c, t)
	},
	update: func(ctx context.Context, c conn, cur, next workshop.Technician, now workshop.Micros) error {
		next.UpdatedAt = workshop.NextMicros(now.Time(), cur.UpdatedAt)
		return updateTechnician(ctx, c, next)
	},
	check: workshop.CheckTechnician,
	now:   func(t workshop.Technician) workshop.Micros { return t.UpdatedAt },
}

var bayImport = entryKind[workshop.Bay]{
	kind: "bays",
	read: func(ctx context.Context, c conn, locationID string) (map[string][]workshop.Bay, error) {
		list, err := queryAll(ctx, c, bayKind.scan, `SELECT `+bayKind.columns+` FROM bays b
			WHERE b.location_id = ? AND b.deleted_at IS NULL`+c.s.forUpdateOf("b"), locationID)
		return byKey(list, func(b workshop.Bay) string { return b.Name }), err
	},
	key: func(b workshop.Bay) string { return b.Name },
	same: func(a, b workshop.Bay) bool {
		return a.Name == b.Name && slices.Equal(a.Equipment, b.Equipment) && slices.Equal(a.Services, b.Services)
	},
	create: func(ctx context.Context, c conn, locationID string, b workshop.Bay) error {
		b.ID, b.LocationID = workshop.NewID(workshop.PrefixBay), locationID
		return insertBay(ctx, c, b)
	},
	update: func(ctx context.Context, c conn, cur, next workshop.Bay, now workshop.Micros) error {
		next.UpdatedAt = workshop.NextMicros(now.Time(), cur.UpdatedAt)
		return updateBay(ctx, c, next)
	},
	check: workshop.CheckBay,
	now:   func(b workshop.Bay) workshop.Micros { return b.UpdatedAt },
}

var catalogImport = entryKind[workshop.CatalogItem]{
	kind: "catalog",
	read: func(ctx context.Context, c conn, locationID string) (map[string][]workshop.CatalogItem, error) {
		list, err := queryAll(ctx, c, scanCatalogItem, `SELECT `+catalogColumns+` FROM catalog_items c WHERE c.location_id = ?`+
			c.s.forUpdate(), locationID)
		return byKey(list, func(it workshop.CatalogItem) string { return it.ServiceCode }), err
	},
	key: func(it workshop.CatalogItem) string { return it.ServiceCode },
	same: func(a, b workshop.CatalogItem) bool {
		_, changed := workshop.SyncCatalogItem(a, b)
		return !changed
	},
	create: func(ctx context.Context, c conn, locationID string, it workshop.CatalogItem) error {
		it.ID, it.LocationID = workshop.NewID(workshop.PrefixCatalogItem), locationID
		return insertCatalogItem(ctx, c, it)
	},
	update: func(ctx context.Context, c conn, cur, next workshop.CatalogItem, now workshop.Micros) error {
		next.UpdatedAt = now
		_, err := syncCatalogItem(ctx, c, cur, next)
		return err
	},
	check: workshop.CheckCatalogItem,
	now:   func(it workshop.CatalogItem) workshop.Micros { return it.UpdatedAt },
}
