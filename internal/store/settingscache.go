package store

import (
	"slices"
	"sync"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// settingsCacheSize bounds the parsed settings kept: one entry per distinct
// text, so one per location at most; the cache starts over when full.
const settingsCacheSize = 1024

// settingsCache remembers workshop settings by their stored JSON text.
// Every job detail needs its location's settings, which change about never,
// and parsing them was a tenth of a detail's cost. Keyed by the text just
// read, an entry can never be stale.
type settingsCache struct {
	mu sync.Mutex
	m  map[settingsText]workshop.Settings
}

type settingsText struct{ hours, breaks string }

func newSettingsCache() *settingsCache {
	return &settingsCache{m: make(map[settingsText]workshop.Settings)}
}

// parse returns the settings of the stored texts, a copy the caller owns.
func (c *settingsCache) parse(hours, breaks string, bayBufferMinutes int) (workshop.Settings, error) {
	key := settingsText{hours, breaks}
	c.mu.Lock()
	st, ok := c.m[key]
	c.mu.Unlock()
	if !ok {
		if err := (jsonList[[]workshop.OpeningHours]{&st.OperatingHours}).Scan(hours); err != nil {
			return st, err
		}
		if err := (jsonList[[]workshop.Break]{&st.Breaks}).Scan(breaks); err != nil {
			return st, err
		}
		c.mu.Lock()
		if len(c.m) >= settingsCacheSize {
			clear(c.m)
		}
		c.m[key] = st
		c.mu.Unlock()
	}
	st.OperatingHours, st.Breaks = slices.Clone(st.OperatingHours), slices.Clone(st.Breaks)
	st.BayBufferMinutes = bayBufferMinutes
	return st, nil
}
