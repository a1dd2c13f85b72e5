package store

import "testing"

func TestSettingsCacheCopiesAndRefusesBadText(t *testing.T) {
	t.Parallel()
	c := newSettingsCache()
	hours, breaks := `[{"day":"mon","open":"08:00","close":"17:30"}]`, `[{"day":"mon","start":"12:00","end":"12:30"}]`
	first, err := c.parse(hours, breaks, 10)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	first.OperatingHours[0].Open, first.Breaks[0].Start = "changed", "changed"
	second, err := c.parse(hours, breaks, 15)
	if err != nil {
		t.Fatalf("parse again: %v", err)
	}
	if got := second.OperatingHours[0].Open + " " + second.Breaks[0].Start; got != "08:00 12:00" {
		t.Errorf("after the first caller changed its copy: open, break start = %s, want 08:00 12:00", got)
	}
	if second.BayBufferMinutes != 15 {
		t.Errorf("bay buffer = %d, want 15 (the row's, not the cached one's)", second.BayBufferMinutes)
	}
	if _, err := c.parse(`[{"day":`, breaks, 10); err == nil {
		t.Error("parse of truncated JSON: no error, want one")
	}
}
