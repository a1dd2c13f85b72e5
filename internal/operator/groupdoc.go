package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// The group document of `workshop admin import` and `export` (contract
// section 10): an organisation's locations with their settings, opening
// hours, breaks, cancel tags, technicians, bays and catalog, in the API's
// field names. A field left out of an entry keeps what the record has (a
// new record: the default a new one gets).

// GroupDoc is the document.
type GroupDoc struct {
	Locations []GroupLocation `json:"locations"`
}

// GroupLocation is a location, matched by name within the organisation.
type GroupLocation struct {
	Name              string                   `json:"name"`
	Timezone          string                   `json:"timezone"`
	Currency          *string                  `json:"currency,omitempty"`
	OperatingHours    *[]workshop.OpeningHours `json:"operatingHours,omitempty"`
	Breaks            *[]workshop.Break        `json:"breaks,omitempty"`
	BayBufferMinutes  *int                     `json:"bayBufferMinutes,omitempty"`
	PlanningDurations *string                  `json:"planningDurations,omitempty"`
	PromiseConfidence *float64                 `json:"promiseConfidence,omitempty"`
	CancelTags        *[]workshop.CancelTag    `json:"cancelTags,omitempty"`
	Technicians       []GroupTechnician        `json:"technicians,omitempty"`
	Bays              []GroupBay               `json:"bays,omitempty"`
	Catalog           []GroupCatalogItem       `json:"catalog,omitempty"`
}

// GroupTechnician is a technician, matched by name within its location.
type GroupTechnician struct {
	Name     string    `json:"name"`
	Skills   *[]string `json:"skills,omitempty"`
	WIPLimit *int      `json:"wipLimit,omitempty"`
	// WorkingHours: left out keeps them; null is the location's working
	// time; a weekly list as `admin technician set-hours` takes.
	WorkingHours json.RawMessage `json:"workingHours,omitempty"`
}

// GroupBay is a bay, matched by name within its location.
type GroupBay struct {
	Name      string    `json:"name"`
	Equipment *[]string `json:"equipment,omitempty"`
	Services  *[]string `json:"services,omitempty"`
}

// GroupCatalogItem is a catalog item, matched by serviceCode within its
// location.
type GroupCatalogItem struct {
	ServiceCode       string    `json:"serviceCode"`
	Name              string    `json:"name"`
	EstimatedDuration int       `json:"estimatedDuration"`
	RequiredSkills    *[]string `json:"requiredSkills,omitempty"`
	IsActive          *bool     `json:"isActive,omitempty"`
}

// ImportError is an invalid entry of the document: its path
// (locations[3].technicians[2].skills) and why.
type ImportError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// The bounds of a document: a file larger, or lists longer, are refused
// before anything is written.
const (
	MaxImportBytes     = 64 << 20
	MaxImportLocations = 5000
	MaxImportEntries   = 1000 // technicians, bays, catalog items, hours of one location
)

// decodedLocation is a location of the document as read: its entry, or
// the errors that make it unreadable.
type decodedLocation struct {
	loc    GroupLocation
	errors []ImportError
	// unread are the paths of list entries that could not be read: they
	// keep their place in the list (a zero entry) and are not checked.
	unread map[string]bool
}

// decodeGroup reads the document strictly (unknown fields, wrong types and
// trailing data are errors), one location at a time, so that a location
// that cannot be read is reported with its path and the others still are.
// An error of the document as a whole is returned as fatal.
func decodeGroup(r io.Reader) ([]decodedLocation, *ImportError) {
	data, err := io.ReadAll(io.LimitReader(r, MaxImportBytes+1))
	if err != nil {
		return nil, &ImportError{Path: "", Message: "The file could not be read: " + err.Error()}
	}
	if len(data) > MaxImportBytes {
		return nil, &ImportError{Path: "", Message: fmt.Sprintf("The file is larger than %d MiB.", MaxImportBytes>>20)}
	}
	var top struct {
		Locations []json.RawMessage `json:"locations"`
	}
	if e := strictDecode(data, &top, ""); e != nil {
		return nil, e
	}
	if top.Locations == nil {
		return nil, &ImportError{Path: "locations", Message: `Give the locations: {"locations":[...]}.`}
	}
	if len(top.Locations) > MaxImportLocations {
		return nil, &ImportError{Path: "locations", Message: fmt.Sprintf("At most %d locations in one file (this has %d).", MaxImportLocations, len(top.Locations))}
	}
	out := make([]decodedLocation, len(top.Locations))
	for i, raw := range top.Locations {
		out[i] = decodeLocation(raw, fmt.Sprintf("locations[%d]", i))
	}
	return out, nil
}

// decodeLocation reads one location, each of its lists entry by entry.
func decodeLocation(raw json.RawMessage, path string) decodedLocation {
	var in struct {
		GroupLocation
		OperatingHours *[]json.RawMessage `json:"operatingHours"`
		Breaks         *[]json.RawMessage `json:"breaks"`
		CancelTags     *[]json.RawMessage `json:"cancelTags"`
		Technicians    []json.RawMessage  `json:"technicians"`
		Bays           []json.RawMessage  `json:"bays"`
		Catalog        []json.RawMessage  `json:"catalog"`
	}
	var d decodedLocation
	if e := strictDecode(raw, &in, path); e != nil {
		d.errors = append(d.errors, *e)
		d.unread = map[string]bool{path: true}
		return d
	}
	d.loc = in.GroupLocation
	d.loc.OperatingHours = decodeOptional[workshop.OpeningHours](&d, in.OperatingHours, path+".operatingHours")
	d.loc.Breaks = decodeOptional[workshop.Break](&d, in.Breaks, path+".breaks")
	d.loc.CancelTags = decodeOptional[workshop.CancelTag](&d, in.CancelTags, path+".cancelTags")
	d.loc.Technicians = decodeEntries[GroupTechnician](&d, in.Technicians, path+".technicians")
	d.loc.Bays = decodeEntries[GroupBay](&d, in.Bays, path+".bays")
	d.loc.Catalog = decodeEntries[GroupCatalogItem](&d, in.Catalog, path+".catalog")
	return d
}

func decodeOptional[T any](d *decodedLocation, raw *[]json.RawMessage, path string) *[]T {
	if raw == nil {
		return nil
	}
	list := decodeEntries[T](d, *raw, path)
	if list == nil {
		list = []T{}
	}
	return &list
}

func decodeEntries[T any](d *decodedLocation, raw []json.RawMessage, path string) []T {
	if len(raw) > MaxImportEntries {
		d.errors = append(d.errors, ImportError{Path: path, Message: fmt.Sprintf("At most %d entries, please (this has %d).", MaxImportEntries, len(raw))})
		return nil
	}
	var out []T
	for i, r := range raw {
		var v T
		p := fmt.Sprintf("%s[%d]", path, i)
		if e := strictDecode(r, &v, p); e != nil {
			d.errors = append(d.errors, *e)
			if d.unread == nil {
				d.unread = map[string]bool{}
			}
			d.unread[p] = true
		}
		out = append(out, v)
	}
	return out
}

// strictDecode decodes one JSON value into v: an object (not null), no
// unknown field, the right types, nothing after it. The error names the
// path of the field at fault.
func strictDecode(data []byte, v any, path string) *ImportError {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return &ImportError{Path: path, Message: "Want a JSON object here."}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, e := dec.Token(); !errors.Is(e, io.EOF) {
			return &ImportError{Path: path, Message: "Unexpected data after the JSON object."}
		}
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return &ImportError{Path: join(path, typeErr.Field), Message: fmt.Sprintf("Want %s here, not %s.", kindOf(typeErr.Type.String()), typeErr.Value)}
	case errors.As(err, &syntaxErr):
		return &ImportError{Path: path, Message: fmt.Sprintf("Not valid JSON (at byte %d): %s.", syntaxErr.Offset, syntaxErr.Error())}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &ImportError{Path: join(path, field), Message: fmt.Sprintf("Unknown field %q.", field)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &ImportError{Path: path, Message: "The JSON ends too early."}
	}
	return &ImportError{Path: path, Message: err.Error()}
}

func join(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "":
		return field
	}
	return path + "." + field
}

// kindOf names a Go type as JSON.
func kindOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]") || strings.HasPrefix(goType, "*[]"):
		return "a list"
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.Contains(goType, "int"):
		return "a whole number"
	case strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "bool"):
		return "true or false"
	}
	return "an object"
}
