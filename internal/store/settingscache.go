package store

import (
	"slices"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// settingsCacheSize bounds the parsed settings kept: one entry per distinct
// text, so about one per location.
const settingsCacheSize = 1024

// settingsCache remembers workshop settings by their stored JSON text.
// Every job detail needs its location's settings, which change about never,
// and parsing them was a tenth of a detail's cost. Keyed by the text just
// read, an entry can never be stale.
type settingsCache struct {
	byText *memo[settingsText, workshop.Settings]
}

type settingsText struct{ hours, breaks string }

func newSettingsCache() *settingsCache {
	return &settingsCache{byText: newMemo[settingsText, workshop.Settings](settingsCacheSize)}
}

// parse returns the settings of the stored texts, a copy the caller owns.
func (c *settingsCache) parse(hours, breaks string, bayBufferMinutes int) (workshop.Settings, error) {
	key := settingsText{hours, breaks}
	st, ok := c.byText.get(key)
	if !ok {
		if err := (jsonList[[]workshop.OpeningHours]{&st.OperatingHours}).Scan(hours); err != nil {
			return st, err
		}
		if err := (jsonList[[]workshop.Break]{&st.Breaks}).Scan(breaks); err != nil {
			return st, err
		}
		c.byText.put(key, st)
	}
	st.OperatingHours, st.Breaks = slices.Clone(st.OperatingHours), slices.Clone(st.Breaks)
	st.BayBufferMinutes = bayBufferMinutes
	return st, nil
}
