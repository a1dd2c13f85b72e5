package operator

import (
	"fmt"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// SampleGroup is a group document of n locations as a dealer group might
// have them: each with its hours, breaks, three cancel tags, 8
// technicians, 4 bays and 10 catalog items (the import's benchmark and
// tests; `workshop bench --scenario import` writes it).
func SampleGroup(n int) GroupDoc {
	doc := GroupDoc{Locations: make([]GroupLocation, n)}
	zones := []string{"Europe/Berlin", "Europe/Paris", "Europe/London", "Europe/Madrid"}
	services := []struct {
		code, name string
		minutes    int
		skills     []string
	}{
		{"OIL", "Oil change", 30, nil}, {"BRK", "Brake service", 90, []string{"brakes"}}, {"TYR", "Tyre change", 45, nil},
		{"INS", "Inspection", 60, nil}, {"EVB", "EV battery check", 120, []string{"ev"}}, {"ALN", "Wheel alignment", 60, []string{"alignment"}},
		{"AC", "Air conditioning", 75, []string{"ac"}}, {"DIA", "Diagnostics", 45, []string{"diagnostics"}},
		{"CLU", "Clutch replacement", 240, []string{"transmission"}}, {"WSH", "Wash", 20, nil},
	}
	skills := []string{"brakes", "ev", "alignment", "ac", "diagnostics", "transmission"}
	for i := range doc.Locations {
		hours := []workshop.OpeningHours{}
		breaks := []workshop.Break{}
		for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
			hours = append(hours, workshop.OpeningHours{Day: d, Open: "07:30", Close: "18:00"})
			breaks = append(breaks, workshop.Break{Day: d, Start: "12:00", End: "12:45"})
		}
		hours = append(hours, workshop.OpeningHours{Day: "sat", Open: "08:00", Close: "13:00"})
		buffer, planning, confidence, currency := 10, workshop.PlanWithEstimate, 0.9, "EUR"
		tags := []workshop.CancelTag{{Tag: "no_show", Label: "No show"}, {Tag: "parts_unavailable", Label: "Parts unavailable"},
			{Tag: "customer_request", Label: "Customer request"}}
		l := GroupLocation{Name: fmt.Sprintf("Site %04d", i+1), Timezone: zones[i%len(zones)], Currency: &currency,
			OperatingHours: &hours, Breaks: &breaks, BayBufferMinutes: &buffer, PlanningDurations: &planning, PromiseConfidence: &confidence,
			CancelTags: &tags}
		for j := range 8 {
			s := []string{skills[j%len(skills)], skills[(j+i)%len(skills)]}
			s = workshop.Dedupe(s)
			wip := 1 + j%3
			l.Technicians = append(l.Technicians, GroupTechnician{Name: fmt.Sprintf("Technician %d", j+1), Skills: &s, WIPLimit: &wip})
		}
		for j := range 4 {
			equipment, svc := []string{"lift"}, []string{}
			if j == 3 {
				svc = []string{"ALN", "TYR"}
			}
			l.Bays = append(l.Bays, GroupBay{Name: fmt.Sprintf("Bay %d", j+1), Equipment: &equipment, Services: &svc})
		}
		for _, s := range services {
			req, active := append([]string{}, s.skills...), true
			l.Catalog = append(l.Catalog, GroupCatalogItem{ServiceCode: s.code, Name: s.name, EstimatedDuration: s.minutes, RequiredSkills: &req, IsActive: &active})
		}
		doc.Locations[i] = l
	}
	return doc
}
