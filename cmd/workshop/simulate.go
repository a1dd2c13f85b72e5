package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/workshop-platform/workshop/internal/simulate"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// simulateCmd runs `workshop simulate`: seeded workshop days through the
// planner under each dispatch policy, and how many promises each kept.
func simulateCmd(args []string, stdout io.Writer) error {
	fs := newFlags("simulate")
	def := simulate.DefaultConfig()
	seed := fs.Uint64("seed", def.Seed, "seed of the generated workshop and days (the same seed, the same figures)")
	days := fs.Int("days", def.Days, "working days with customers (Monday to Friday)")
	policies := fs.String("policy", strings.Join(simulate.Policies, ","), "dispatch policies: fcfs, plan")
	durations := fs.String("durations", strings.Join(workshop.PlanningDurationsValues, ","), "planning durations: estimate, p50, p80")
	techs := fs.Int("technicians", def.Technicians, "generated technicians")
	bays := fs.Int("bays", def.Bays, "generated bays")
	services := fs.Int("services", def.Services, fmt.Sprintf("catalog services used (1-%d)", len(simulate.Catalog)))
	jobs := fs.Int("jobs", def.JobsPerDay, "customers a day, on average")
	confidence := fs.Float64("confidence", def.Confidence, fmt.Sprintf("promise confidence of quotes with learned durations (%.2f-%.2f)",
		workshop.MinPromiseConfidence, workshop.MaxPromiseConfidence))
	partTime := fs.Int("part-time", 0, "how many of the generated technicians work weekday mornings only (07:00-13:00)")
	var hire, addBays multiFlag
	fs.Var(&hire, "hire", "add a technician with these comma-separated skills, e.g. --hire diagnostics (repeatable; skills: "+
		strings.Join(simulate.Skills, ", ")+")")
	fs.Var(&addBays, "add-bay", "add a bay taking these comma-separated service codes, or any (repeatable)")
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", rest[0])}
	}
	c := simulate.Config{Seed: *seed, Days: *days, Technicians: *techs, Bays: *bays, Services: *services, JobsPerDay: *jobs,
		Confidence: *confidence, PartTime: *partTime}
	if err := choose("policy", list(*policies), simulate.Policies); err != nil {
		return err
	}
	if err := choose("durations", list(*durations), workshop.PlanningDurationsValues); err != nil {
		return err
	}
	for _, h := range hire {
		skills := list(h)
		if err := choose("hire", skills, simulate.Skills); err != nil {
			return err
		}
		c.Hire = append(c.Hire, skills)
	}
	var catalog []string
	for _, s := range simulate.Catalog {
		catalog = append(catalog, s.Code)
	}
	for _, b := range addBays {
		codes := list(b)
		if slices.Equal(codes, []string{"any"}) {
			codes = nil
		} else if err := choose("add-bay", codes, catalog); err != nil {
			return err
		}
		c.AddBays = append(c.AddBays, codes)
	}
	if c.PartTime < 0 || c.PartTime > c.Technicians {
		return usageError{fmt.Errorf("--part-time: from 0 to --technicians (%d)", c.Technicians)}
	}
	if c.Days < 1 || c.JobsPerDay < 0 {
		return usageError{fmt.Errorf("--days: at least 1, --jobs: not negative")}
	}
	if c.Confidence < workshop.MinPromiseConfidence || c.Confidence > workshop.MaxPromiseConfidence {
		return usageError{fmt.Errorf("--confidence: from %.2f to %.2f", workshop.MinPromiseConfidence, workshop.MaxPromiseConfidence)}
	}
	report, err := simulate.Run(c, list(*policies), list(*durations))
	if err != nil {
		return usageError{err}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(report)
	}
	printWorkshop(stdout, c, report.Workshop)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tdurations\tpromises kept\tmean quote min\tweighted late min\tutilisation\tchurn\tmean lead min\t")
	for _, r := range report.Policies {
		fmt.Fprintf(tw, "%s\t%s\t%.1f %%\t%.1f\t%d\t%.1f %%\t%.1f %%\t%.1f\t\n", r.Policy, r.Durations, 100*r.PromisesKept,
			r.MeanQuoteMinutes, r.WeightedLateMinutes, 100*r.Utilisation, 100*r.Churn, r.MeanLeadMinutes)
	}
	return tw.Flush()
}

// printWorkshop says what was simulated: who can do what, which bay
// takes what.
func printWorkshop(w io.Writer, c simulate.Config, ws *simulate.Workshop) {
	fmt.Fprintf(w, "seed %d, %d days, about %d customers a day\ntechnicians:", c.Seed, c.Days, c.JobsPerDay)
	for _, t := range ws.Techs {
		hours := ""
		if t.Hours != nil {
			hours = "; mornings"
		}
		fmt.Fprintf(w, " %s (%s%s)", t.ID, strings.Join(t.Skills, ", "), hours)
	}
	fmt.Fprint(w, "\nbays:")
	for _, b := range ws.Bays {
		services := "any"
		if len(b.Services) > 0 {
			services = strings.Join(b.Services, ", ")
		}
		fmt.Fprintf(w, " %s (%s)", b.ID, services)
	}
	fmt.Fprint(w, "\nservices:")
	for _, s := range ws.Services {
		fmt.Fprintf(w, " %s %d min", s.Code, s.Estimate)
		if len(s.Skills) > 0 {
			fmt.Fprintf(w, " needs %s;", strings.Join(s.Skills, " and "))
		} else {
			fmt.Fprint(w, ";")
		}
	}
	fmt.Fprint(w, "\n\n")
}

// choose checks that every value given is one of allowed.
func choose(flag string, given, allowed []string) error {
	if len(given) == 0 {
		return usageError{fmt.Errorf("--%s: give one of %s", flag, strings.Join(allowed, ", "))}
	}
	for _, g := range given {
		if !slices.Contains(allowed, g) {
			return usageError{fmt.Errorf("--%s: %q is not one of %s", flag, g, strings.Join(allowed, ", "))}
		}
	}
	return nil
}

// multiFlag is a flag that may be given more than once.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
