package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// ImportCounts counts records of each kind.
type ImportCounts struct {
	Locations    int `json:"locations"`
	Technicians  int `json:"technicians"`
	Bays         int `json:"bays"`
	CatalogItems int `json:"catalogItems"`
}

// ImportOut is what an import did (contract section 10), or with DryRun
// what it would do, Changes naming each record it would create or update.
type ImportOut struct {
	Created   ImportCounts   `json:"created"`
	Updated   ImportCounts   `json:"updated"`
	Unchanged ImportCounts   `json:"unchanged"`
	DryRun    bool           `json:"dryRun,omitempty"`
	Changes   []ImportChange `json:"changes,omitempty"`
}

// ImportChange is a record a dry run would create or update.
type ImportChange struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	Action string `json:"action"` // created or updated
}

// ImportFailed is an import that wrote its valid locations and refused
// the others: every error with its path.
type ImportFailed struct {
	Errors []ImportError
}

func (e *ImportFailed) Error() string {
	if len(e.Errors) == 0 {
		return "import failed"
	}
	return fmt.Sprintf("%d error(s), the first at %s: %s", len(e.Errors), e.Errors[0].Path, e.Errors[0].Message)
}

// Import creates or updates an organisation's locations as the document
// read from r says, one transaction per location (contract section 10).
// A location with any invalid entry is written not at all; the others
// are. The answer counts what was done; with errors it comes with an
// *ImportFailed.
func (o *Operator) Import(ctx context.Context, orgID string, r io.Reader, dryRun bool) (ImportOut, error) {
	out := ImportOut{DryRun: dryRun}
	if _, err := o.Store.Org(ctx, orgID); err != nil {
		return out, err
	}
	locs, fatal := decodeGroup(r)
	if fatal != nil {
		return out, &ImportFailed{Errors: []ImportError{*fatal}}
	}
	var failed []ImportError
	seen := map[string]int{}
	now := o.stamp()
	for i, d := range locs {
		path := fmt.Sprintf("locations[%d]", i)
		errs := d.errors
		if !d.unread[path] {
			if j, dup := seen[d.loc.Name]; dup {
				errs = append(errs, ImportError{Path: path + ".name", Message: fmt.Sprintf("The location %q is given twice (locations[%d]).", d.loc.Name, j)})
			} else {
				seen[d.loc.Name] = i
			}
		}
		in, invalid := importOf(orgID, d, path, now, dryRun)
		errs = append(errs, invalid...)
		if len(errs) == 0 {
			done, err := o.Store.ImportLocation(ctx, in)
			var fe *store.ImportFieldError
			switch {
			case errors.As(err, &fe):
				errs = pathErrors(entryPath(path, fe.Kind, fe.Index), fe.Err)
			case err != nil:
				return out, err
			default:
				out.add(d.loc, path, done)
			}
		}
		failed = append(failed, errs...)
	}
	if len(failed) > 0 {
		return out, &ImportFailed{Errors: failed}
	}
	return out, nil
}

func entryPath(path, kind string, i int) string {
	if kind == "" {
		return path
	}
	return fmt.Sprintf("%s.%s[%d]", path, kind, i)
}

// pathErrors turns a validation error into errors at path (its fields
// under it); any other error is the path's.
func pathErrors(path string, err error) []ImportError {
	var e *workshop.Error
	if errors.As(err, &e) && len(e.Fields) > 0 {
		out := make([]ImportError, len(e.Fields))
		for i, f := range e.Fields {
			out[i] = ImportError{Path: join(path, f.Field), Message: f.Message}
		}
		return out
	}
	return []ImportError{{Path: path, Message: err.Error()}}
}

// add counts what a location's import did.
func (out *ImportOut) add(l GroupLocation, path string, done store.LocationImported) {
	count := func(action string, field func(*ImportCounts) *int, p, name string) {
		switch action {
		case store.ImportCreated:
			*field(&out.Created)++
		case store.ImportUpdated:
			*field(&out.Updated)++
		default:
			*field(&out.Unchanged)++
			return
		}
		if out.DryRun {
			out.Changes = append(out.Changes, ImportChange{Path: p, Name: name, Action: action})
		}
	}
	count(done.Location, func(c *ImportCounts) *int { return &c.Locations }, path, l.Name)
	for i, a := range done.Technicians {
		count(a, func(c *ImportCounts) *int { return &c.Technicians }, fmt.Sprintf("%s.technicians[%d]", path, i), l.Technicians[i].Name)
	}
	for i, a := range done.Bays {
		count(a, func(c *ImportCounts) *int { return &c.Bays }, fmt.Sprintf("%s.bays[%d]", path, i), l.Bays[i].Name)
	}
	for i, a := range done.Catalog {
		count(a, func(c *ImportCounts) *int { return &c.CatalogItems }, fmt.Sprintf("%s.catalog[%d]", path, i), l.Catalog[i].ServiceCode)
	}
}

// importOf validates a location of the document by the rules of the
// application's and the API's writes, and makes the store's import of it.
func importOf(orgID string, d decodedLocation, path string, now workshop.Micros, dryRun bool) (store.LocationImport, []ImportError) {
	var errs []ImportError
	l := d.loc
	if d.unread[path] {
		return store.LocationImport{}, nil // its error is the decoding's
	}
	check := func(p string, err error) {
		if err != nil {
			errs = append(errs, pathErrors(p, err)...)
		}
	}
	currency := ""
	if l.Currency != nil {
		currency = *l.Currency
		if currency == "" {
			errs = append(errs, ImportError{Path: path + ".currency", Message: "Give a three-letter currency code such as EUR, or leave the field out."})
		}
	}
	_, err := CheckLocationFields(LocationFields{Name: l.Name, Timezone: l.Timezone, Currency: currency})
	check(path, err)
	settings := func(cur workshop.Settings) workshop.Settings {
		// Hours and breaks describe one week: new hours without breaks
		// have none (the old ones may lie outside them).
		if l.OperatingHours != nil {
			cur.OperatingHours, cur.Breaks = *l.OperatingHours, []workshop.Break{}
		}
		if l.Breaks != nil {
			cur.Breaks = *l.Breaks
		}
		if l.BayBufferMinutes != nil {
			cur.BayBufferMinutes = *l.BayBufferMinutes
		}
		if l.PlanningDurations != nil {
			cur.PlanningDurations = *l.PlanningDurations
		}
		if l.PromiseConfidence != nil {
			cur.PromiseConfidence = *l.PromiseConfidence
		}
		return cur
	}
	if l.PlanningDurations != nil && *l.PlanningDurations == "" {
		errs = append(errs, ImportError{Path: path + ".planningDurations", Message: "Planning durations are estimate, p50 or p80."})
	}
	// Checked over the defaults here; over the location's own settings
	// again when it is written.
	check(path, workshop.ValidateSettings(settings(workshop.DefaultSettings())))
	in := store.LocationImport{OrgID: orgID, Name: l.Name, Timezone: l.Timezone, Currency: currency, Settings: settings, Now: now, DryRun: dryRun}
	if l.CancelTags != nil {
		in.CancelTags = []workshop.CancelTag{}
		for i, t := range *l.CancelTags {
			p := fmt.Sprintf("%s.cancelTags[%d]", path, i)
			if d.unread[p] {
				continue
			}
			check(p, workshop.CheckCancelTag("tag", "label", t.Tag, t.Label))
			if slices.ContainsFunc(in.CancelTags, func(o workshop.CancelTag) bool { return o.Tag == t.Tag }) {
				errs = append(errs, ImportError{Path: p + ".tag", Message: fmt.Sprintf("The tag %q is given twice.", t.Tag)})
			}
			if t.Label == "" {
				t.Label = workshop.TagLabel(t.Tag)
			}
			in.CancelTags = append(in.CancelTags, workshop.CancelTag{Tag: t.Tag, Label: t.Label})
		}
	}
	var e []ImportError
	in.Technicians, e = entries(d, path+".technicians", "name", l.Technicians, func(t GroupTechnician) string { return t.Name }, techniciansOf(orgID, now))
	errs = append(errs, e...)
	in.Bays, e = entries(d, path+".bays", "name", l.Bays, func(b GroupBay) string { return b.Name }, baysOf(orgID, now))
	errs = append(errs, e...)
	in.Catalog, e = entries(d, path+".catalog", "serviceCode", l.Catalog, func(it GroupCatalogItem) string { return it.ServiceCode }, catalogOf(orgID, now))
	errs = append(errs, e...)
	return in, errs
}

// entries makes the store's imports of a list, refusing a key given twice
// and checking each new record by the rule of its kind (check).
func entries[G, T any](d decodedLocation, path, keyField string, list []G, key func(G) string, of func(G) (store.EntryImport[T], error)) ([]store.EntryImport[T], []ImportError) {
	var out []store.EntryImport[T]
	var errs []ImportError
	seen := map[string]int{}
	for i, g := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		if d.unread[p] {
			continue
		}
		k := key(g)
		if j, dup := seen[k]; dup {
			errs = append(errs, ImportError{Path: p + "." + keyField, Message: fmt.Sprintf("%q is given twice in this location (%s[%d]).", k, path, j)})
			continue
		}
		seen[k] = i
		e, err := of(g)
		if err != nil {
			errs = append(errs, pathErrors(p, err)...)
			continue
		}
		out = append(out, e)
	}
	return out, errs
}

func orList(p *[]string, cur []string) []string {
	if p == nil {
		return cur
	}
	return workshop.Dedupe(*p)
}

func techniciansOf(orgID string, now workshop.Micros) func(GroupTechnician) (store.EntryImport[workshop.Technician], error) {
	return func(g GroupTechnician) (store.EntryImport[workshop.Technician], error) {
		var hours []workshop.WeeklyHours
		if len(g.WorkingHours) > 0 {
			var err error
			if hours, err = workshop.ParseWorkingHours(string(g.WorkingHours)); err != nil {
				return store.EntryImport[workshop.Technician]{}, err
			}
		}
		merge := func(t workshop.Technician) workshop.Technician {
			t.Name, t.Skills = g.Name, orList(g.Skills, t.Skills)
			if g.WIPLimit != nil {
				t.WIPLimit = *g.WIPLimit
			}
			if len(g.WorkingHours) > 0 {
				t.WorkingHours = hours
			}
			return t
		}
		t := merge(workshop.Technician{OrgID: orgID, Skills: []string{}, WIPLimit: workshop.DefaultWIPLimit, Status: "available",
			CreatedAt: now, UpdatedAt: now})
		return store.EntryImport[workshop.Technician]{New: t, Merge: merge}, workshop.CheckTechnician(t)
	}
}

func baysOf(orgID string, now workshop.Micros) func(GroupBay) (store.EntryImport[workshop.Bay], error) {
	return func(g GroupBay) (store.EntryImport[workshop.Bay], error) {
		merge := func(b workshop.Bay) workshop.Bay {
			b.Name, b.Equipment, b.Services = g.Name, orList(g.Equipment, b.Equipment), orList(g.Services, b.Services)
			return b
		}
		b := merge(workshop.Bay{OrgID: orgID, Equipment: []string{}, Services: []string{}, Status: "available", CreatedAt: now, UpdatedAt: now})
		return store.EntryImport[workshop.Bay]{New: b, Merge: merge}, workshop.CheckBay(b)
	}
}

func catalogOf(orgID string, now workshop.Micros) func(GroupCatalogItem) (store.EntryImport[workshop.CatalogItem], error) {
	return func(g GroupCatalogItem) (store.EntryImport[workshop.CatalogItem], error) {
		merge := func(it workshop.CatalogItem) workshop.CatalogItem {
			it.ServiceCode, it.Name, it.EstimatedDuration = g.ServiceCode, g.Name, g.EstimatedDuration
			it.RequiredSkills = orList(g.RequiredSkills, it.RequiredSkills)
			if g.IsActive != nil {
				it.IsActive = *g.IsActive
			}
			return it
		}
		it := merge(workshop.CatalogItem{OrgID: orgID, RequiredSkills: []string{}, IsActive: true, CreatedAt: now, UpdatedAt: now})
		return store.EntryImport[workshop.CatalogItem]{New: it, Merge: merge}, workshop.CheckCatalogItem(it)
	}
}

// Export is the document that would recreate the organisation's current
// setup: every location with its settings, active cancel tags,
// technicians, bays and catalog.
func (o *Operator) Export(ctx context.Context, orgID string) (GroupDoc, error) {
	doc := GroupDoc{Locations: []GroupLocation{}}
	if _, err := o.Store.Org(ctx, orgID); err != nil {
		return doc, err
	}
	locs, err := o.Store.Locations(ctx, orgID, "")
	if err != nil {
		return doc, err
	}
	for _, l := range locs {
		g, err := o.exportLocation(ctx, l)
		if err != nil {
			return doc, err
		}
		doc.Locations = append(doc.Locations, g)
	}
	return doc, nil
}

func (o *Operator) exportLocation(ctx context.Context, l workshop.Location) (GroupLocation, error) {
	v := store.Visibility{OrgID: l.OrgID, LocationID: l.ID}
	st, err := o.Store.Settings(ctx, l.ID)
	if err != nil {
		return GroupLocation{}, err
	}
	tags, err := o.Store.CancelTags(ctx, l.ID)
	if err != nil {
		return GroupLocation{}, err
	}
	g := GroupLocation{Name: l.Name, Timezone: l.Timezone, Currency: &l.CurrencyCode, OperatingHours: &st.OperatingHours, Breaks: &st.Breaks,
		BayBufferMinutes: &st.BayBufferMinutes, PlanningDurations: &st.PlanningDurations, PromiseConfidence: &st.PromiseConfidence,
		CancelTags: &tags, Technicians: []GroupTechnician{}, Bays: []GroupBay{}, Catalog: []GroupCatalogItem{}}
	techs, err := workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.Technician], error) {
		return o.Store.Technicians(ctx, v, p)
	})
	if err != nil {
		return g, err
	}
	for _, t := range techs {
		hours, err := json.Marshal(t.WorkingHours) // null: the location's working time
		if err != nil {
			return g, err
		}
		g.Technicians = append(g.Technicians, GroupTechnician{Name: t.Name, Skills: &t.Skills, WIPLimit: &t.WIPLimit, WorkingHours: hours})
	}
	bays, err := workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.Bay], error) { return o.Store.Bays(ctx, v, p) })
	if err != nil {
		return g, err
	}
	for _, b := range bays {
		g.Bays = append(g.Bays, GroupBay{Name: b.Name, Equipment: &b.Equipment, Services: &b.Services})
	}
	items, err := workshop.EveryPage(func(p workshop.PageRequest) (workshop.Page[workshop.CatalogItem], error) {
		return o.Store.CatalogItems(ctx, v, p)
	})
	if err != nil {
		return g, err
	}
	for _, it := range items {
		g.Catalog = append(g.Catalog, GroupCatalogItem{ServiceCode: it.ServiceCode, Name: it.Name, EstimatedDuration: it.EstimatedDuration,
			RequiredSkills: &it.RequiredSkills, IsActive: &it.IsActive})
	}
	return g, nil
}
