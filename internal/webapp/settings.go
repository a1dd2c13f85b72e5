package webapp

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// settingsRoutes serves the workshop settings (issue 20, part 3): the
// operating hours and breaks of each weekday, the bay buffer, and the
// cancel reason tags. Roles that read the workshop see them; owners and
// admins change them.
func (a *App) settingsRoutes(mux *http.ServeMux) {
	mux.Handle("GET /locations/{locationID}/settings", a.member(a.settingsPage))
	mux.Handle("POST /locations/{locationID}/settings", a.member(a.saveSettings))
	mux.Handle("POST /locations/{locationID}/settings/tags", a.member(a.putCancelTag))
	mux.Handle("POST /locations/{locationID}/settings/tags/{tag}/retire", a.member(a.retireCancelTag))
}

const scopeWorkshopRead = workshop.Scope("workshop:read")

func settingsPath(locationID string) string { return "/locations/" + locationID + "/settings" }

// settingsDesk opens a settings request: the location's desk for a role
// that reads the workshop, and for a write an owner or admin.
func (a *App) settingsDesk(w http.ResponseWriter, r *http.Request, si *store.SignedIn) (*desk, error) {
	return a.locationDesk(w, r, si, allows(si, scopeWorkshopRead) && (r.Method != http.MethodPost || isAdmin(si)))
}

func (a *App) settingsPage(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.settingsDesk(w, r, si)
	if err != nil {
		return err
	}
	st, err := a.store.Settings(r.Context(), d.loc.ID)
	if err != nil {
		return err
	}
	return a.renderSettings(w, r, d, http.StatusOK, settingsForm(st), form{Values: map[string]string{}, Errors: map[string]string{}})
}

// settingsFields are the names of the settings form's inputs.
func settingsFields() []string {
	fields := []string{"updatedAt", "bayBufferMinutes", "planningDurations", "promiseConfidence", "customerDataRetentionDays"}
	for _, day := range workshop.Weekdays {
		fields = append(fields, "open-"+day, "close-"+day, "breaks-"+day)
	}
	return fields
}

// settingsForm is the form of stored settings.
func settingsForm(st workshop.Settings) form {
	f := form{Values: map[string]string{"updatedAt": versionOf(st.UpdatedAt), "bayBufferMinutes": strconv.Itoa(st.BayBufferMinutes),
		"planningDurations": st.PlanningDurations, "promiseConfidence": strconv.Itoa(int(math.Round(100 * st.PromiseConfidence)))},
		Errors: map[string]string{}}
	if d := st.CustomerDataRetentionDays; d != nil {
		f.Values["customerDataRetentionDays"] = strconv.Itoa(*d)
	}
	for _, h := range st.OperatingHours {
		f.Values["open-"+h.Day], f.Values["close-"+h.Day] = h.Open, h.Close
	}
	for _, b := range st.Breaks {
		span := b.Start + "-" + b.End
		if cur := f.Values["breaks-"+b.Day]; cur != "" {
			span = cur + ", " + span
		}
		f.Values["breaks-"+b.Day] = span
	}
	return f
}

// planningDurationChoices are the values of planningDurations as people
// read them.
var planningDurationChoices = []struct{ Value, Label string }{
	{workshop.PlanWithEstimate, "The estimate of each step"},
	{workshop.PlanWithP50, "Learned: usual duration (median of the last 90 days)"},
	{workshop.PlanWithP80, "Learned: long duration (80th percentile of the last 90 days)"},
}

// settingsAliases put the domain's messages beside the form's inputs.
func settingsAliases() map[string]string {
	m := map[string]string{}
	for _, day := range workshop.Weekdays {
		m["operatingHours."+day] = "hours-" + day
		m["breaks."+day] = "breaks-" + day
	}
	return m
}

func (a *App) saveSettings(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.settingsDesk(w, r, si)
	if err != nil {
		return err
	}
	f := formOf(r, settingsFields()...)
	for _, day := range workshop.Weekdays {
		f.Values["hours-"+day] = "" // where the day's hours' message goes
	}
	st, v := settingsOf(f)
	err = v.Err()
	if err == nil {
		err = workshop.ValidateSettings(st)
	}
	if err == nil {
		err = a.store.SetSettings(r.Context(), d.loc.ID, st, store.IfUnchanged(parseVersion(f.Values["updatedAt"])))
	}
	if err == nil {
		http.Redirect(w, r, settingsPath(d.loc.ID)+"?saved=1", http.StatusSeeOther)
		return nil
	}
	status, known := f.refusal(err, settingsAliases())
	if !known {
		return err
	}
	if workshop.ErrorCode(err) == workshop.CodeStaleUpdatedAt { // the settings as they are now
		cur, rerr := a.store.Settings(r.Context(), d.loc.ID)
		if rerr != nil {
			return rerr
		}
		stale := settingsForm(cur)
		stale.Errors = f.Errors
		f = stale
	}
	return a.renderSettings(w, r, d, status, f, form{Values: map[string]string{}, Errors: map[string]string{}})
}

// settingsOf reads the form: a day with neither time is closed; breaks
// are "HH:MM-HH:MM" separated by commas.
func settingsOf(f form) (workshop.Settings, *workshop.Validation) {
	var v workshop.Validation
	st := workshop.Settings{OperatingHours: []workshop.OpeningHours{}, Breaks: []workshop.Break{}}
	buffer, err := strconv.Atoi(strings.TrimSpace(f.Values["bayBufferMinutes"]))
	if err != nil {
		v.Add("bayBufferMinutes", "Enter the bay buffer in whole minutes.")
	}
	st.BayBufferMinutes = buffer
	st.PlanningDurations = f.Values["planningDurations"]
	// People give the confidence as a share in per cent: 90 for 0.9.
	percent, err := strconv.Atoi(strings.TrimSpace(f.Values["promiseConfidence"]))
	if err != nil {
		v.Add("promiseConfidence", "Enter the share of promises to keep in whole per cent, from 50 to 99.")
	}
	st.PromiseConfidence = float64(percent) / 100
	if days := strings.TrimSpace(f.Values["customerDataRetentionDays"]); days != "" {
		n, err := strconv.Atoi(days)
		if err != nil {
			v.Add("customerDataRetentionDays", "Enter whole days from %d to %d, or leave empty to keep customer contact.", workshop.MinRetentionDays, workshop.MaxRetentionDays)
		}
		st.CustomerDataRetentionDays = &n
	}
	for _, day := range workshop.Weekdays {
		open, close := strings.TrimSpace(f.Values["open-"+day]), strings.TrimSpace(f.Values["close-"+day])
		switch {
		case open == "" && close == "":
		case open == "" || close == "":
			v.Add("hours-"+day, "Give both the opening and the closing time, or neither for a closed day.")
		default:
			st.OperatingHours = append(st.OperatingHours, workshop.OpeningHours{Day: day, Open: open, Close: close})
		}
		for _, span := range strings.Split(f.Values["breaks-"+day], ",") {
			span = strings.TrimSpace(span)
			if span == "" {
				continue
			}
			start, end, found := strings.Cut(span, "-")
			if !found {
				v.Add("breaks-"+day, "Write each break as HH:MM-HH:MM, e.g. 12:00-12:30.")
				break
			}
			st.Breaks = append(st.Breaks, workshop.Break{Day: day, Start: strings.TrimSpace(start), End: strings.TrimSpace(end)})
		}
	}
	return st, &v
}

// putCancelTag adds a tag, relabels one, or reinstates a retired one.
func (a *App) putCancelTag(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.settingsDesk(w, r, si)
	if err != nil {
		return err
	}
	tf := formOf(r, "tag", "label")
	tag, label := strings.TrimSpace(tf.Values["tag"]), strings.TrimSpace(tf.Values["label"])
	if label == "" {
		label = workshop.TagLabel(tag)
	}
	err = workshop.CheckCancelTag("tag", "label", tag, label)
	if err == nil {
		err = a.store.PutCancelTag(r.Context(), d.loc.ID, workshop.CancelTag{Tag: tag, Label: label})
	}
	return a.afterTag(w, r, d, tf, err)
}

func (a *App) retireCancelTag(w http.ResponseWriter, r *http.Request, si *store.SignedIn) error {
	d, err := a.settingsDesk(w, r, si)
	if err != nil {
		return err
	}
	return a.afterTag(w, r, d, form{Values: map[string]string{}, Errors: map[string]string{}},
		a.store.RetireCancelTag(r.Context(), d.loc.ID, r.PathValue("tag")))
}

func (a *App) afterTag(w http.ResponseWriter, r *http.Request, d *desk, tf form, err error) error {
	if err == nil {
		http.Redirect(w, r, settingsPath(d.loc.ID)+"#tags-heading", http.StatusSeeOther)
		return nil
	}
	status, known := tf.refusal(err, nil)
	if !known {
		return err
	}
	st, err := a.store.Settings(r.Context(), d.loc.ID)
	if err != nil {
		return err
	}
	return a.renderSettings(w, r, d, status, settingsForm(st), tf)
}

// dayRow is a weekday's inputs.
type dayRow struct{ Day, Name string }

func (a *App) renderSettings(w http.ResponseWriter, r *http.Request, d *desk, status int, f, tagForm form) error {
	tags, err := a.store.CancelTagsWithRetired(r.Context(), d.loc.ID)
	if err != nil {
		return err
	}
	days := make([]dayRow, len(workshop.Weekdays))
	for i, day := range workshop.Weekdays {
		days[i] = dayRow{Day: day, Name: workshop.DayName(day)}
	}
	return a.render(w, r, status, "settings", view{Header: d.header, Form: f, Data: map[string]any{"Location": d.loc, "Days": days,
		"Tags": tags, "TagForm": tagForm, "MayEdit": isAdmin(d.si), "Saved": r.URL.Query().Get("saved") == "1" && status == http.StatusOK,
		"MaxBuffer": workshop.MaxBayBufferMinutes, "PlanningDurations": planningDurationChoices}})
}
