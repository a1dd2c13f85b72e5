package webapp

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

//go:embed templates
var templateFS embed.FS

// pages are the parsed templates by page name: each page is the layout
// with the page's own "title" and "main".
type pages map[string]*template.Template

// notPages are the templates that are not pages of the layout.
var notPages = []string{"layout.html", "wall.html"}

func parsePages() (pages, error) {
	funcs := template.FuncMap{
		"asset": func(name string) string { return assetPaths[name] },
		// duration shows minutes as h:mm, as every page does (format.go).
		"duration": durationText,
		// field is the argument of the "field" template: one input of a form.
		"field": func(f form, name, label, typ, autocomplete string) map[string]any {
			return map[string]any{"Form": f, "Name": name, "Label": label, "Type": typ, "Auto": autocomplete}
		},
		"selectBlank": func(f form, name, label, blank string, options []option) map[string]any {
			return map[string]any{"Form": f, "Name": name, "ID": name, "Label": label, "Options": options, "Blank": blank}
		},
		// dict makes a sub-template's argument of name, value pairs.
		"dict": func(pairs ...any) map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(pairs); i += 2 {
				m[pairs[i].(string)] = pairs[i+1]
			}
			return m
		},
		// selectOf is the argument of the "select" template.
		"selectOf": func(f form, name, label string, options []option) map[string]any {
			return map[string]any{"Form": f, "Name": name, "ID": name, "Label": label, "Options": options, "Blank": ""}
		},
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := pages{}
	for _, file := range files {
		if slices.Contains(notPages, path.Base(file)) {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, file)
		if err != nil {
			return nil, err
		}
		p[strings.TrimSuffix(path.Base(file), ".html")] = t
	}
	return p, nil
}

// view is what every page renders.
type view struct {
	Header *header // nil: signed out (no header)
	Form   form
	Data   any
}

// header is the signed-in layout's header.
type header struct {
	OrgName, Email string
	Role           workshop.Role
	Locations      []workshop.Location
	LocationID     string // the location shown, if any
	SwitchOrg      bool   // the sign-in matched several organisations
	DayClosing     bool   // the location's day is being closed: a banner, writes refused
	MayWriteJobs   bool   // the role has jobs:write (the "New job" link)
	WorksSteps     bool   // the user works as a technician (the "My work" link)
	Developer      bool   // the user has developer access (developer settings)
	Admin          bool   // an owner or admin (the organisation's settings)
}

// form is a form's values and the message beside each invalid field
// (Errors[""]: a message for the whole form).
type form struct {
	Values map[string]string
	Errors map[string]string
}

// formOf reads the fields of a posted form.
func formOf(r *http.Request, fields ...string) form {
	f := form{Values: map[string]string{}, Errors: map[string]string{}}
	for _, name := range fields {
		f.Values[name] = r.PostFormValue(name)
	}
	return f
}

// message is every message of the form in one sentence, the form's own
// first: for a page that shows a refusal in one place.
func (f form) message() string {
	msgs := []string{f.Errors[""]}
	for _, name := range slices.Sorted(maps.Keys(f.Errors)) {
		if name != "" {
			msgs = append(msgs, f.Errors[name])
		}
	}
	return strings.TrimSpace(strings.Join(msgs, " "))
}

// invalid puts a validation error's messages beside their fields; it
// tells whether err was one.
func (f form) invalid(err error) bool {
	var e *workshop.Error
	if !errors.As(err, &e) || e.Code != workshop.CodeValidationFailed {
		return false
	}
	for _, fe := range e.Fields {
		if _, taken := f.Errors[fe.Field]; !taken {
			f.Errors[fe.Field] = fe.Message
		}
	}
	return true
}

// headerOf is the header of a member's page.
func (a *App) headerOf(r *http.Request, si *store.SignedIn, locationID string) (*header, error) {
	locs, err := a.store.Locations(r.Context(), si.Member.Org.ID, "")
	if err != nil {
		return nil, err
	}
	h := &header{OrgName: si.Member.Org.Name, Email: si.Member.User.Email, Role: si.Member.User.Role, Locations: locs,
		LocationID: locationID, SwitchOrg: len(si.Choices) > 1, MayWriteJobs: mayWrite(si),
		WorksSteps: si.Member.TechnicianID != "", Developer: si.Member.User.HasDeveloperAccess(), Admin: isAdmin(si)}
	if locationID != "" { // every page of a location shows its day close
		day, err := a.store.DayState(r.Context(), store.Visibility{OrgID: si.Member.Org.ID}, locationID)
		switch {
		case err == nil:
			h.DayClosing = day.State == workshop.DayClosing
		case workshop.ErrorCode(err) != workshop.CodeNotFound: // another organisation's: the page says not found
			return nil, err
		}
	}
	return h, nil
}

// render writes a page whole: it is rendered before the status is sent, so
// a failure is returned before anything is written, never half a page.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) error {
	if v.Form.Values == nil {
		v.Form = form{Values: map[string]string{}, Errors: map[string]string{}}
	}
	var b bytes.Buffer
	if err := a.pages[page].ExecuteTemplate(&b, "layout.html", v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = b.WriteTo(w)
	return nil
}

// fail answers a fault of the server (never of the input): logged, 500.
// A page that failed because its client went away (its reads were
// cancelled) is no fault: the request's own log line says it was
// abandoned (499), and nobody reads the answer.
func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() == nil {
		a.log.ErrorContext(r.Context(), "application page failed", "path", r.URL.Path, "error", err)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte("Something went wrong on our side. Try again in a moment.\n"))
}
