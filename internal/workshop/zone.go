package workshop

import (
	"sync"
	"time"
)

// zones are the time zones loaded so far, by name. time.LoadLocation reads
// and parses the zone's data on every call (tens of microseconds), and
// every create, attendance record and job detail needs its location's
// zone; a *time.Location is immutable, and the names are the few of the
// locations, so they are kept for the life of the process.
var zones sync.Map // name -> *time.Location

// LoadZone is time.LoadLocation, remembered.
func LoadZone(name string) (*time.Location, error) {
	if z, ok := zones.Load(name); ok {
		return z.(*time.Location), nil
	}
	z, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, z)
	return z, nil
}
