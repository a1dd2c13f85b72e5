package planning

import (
	"testing"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestCacheBoundedByBytes: the cache keeps plans while their estimated
// size fits; past it the oldest minute's go first, then as many of this
// minute's as it takes, never the plan just kept.
func TestCacheBoundedByBytes(t *testing.T) {
	t.Parallel()
	planOf := func(jobs int) *Plan {
		p := &Plan{}
		for range jobs {
			p.Input.Jobs = append(p.Input.Jobs, workshop.DispatchJob{Steps: make([]workshop.DispatchStep, 3)})
		}
		return p
	}
	one := planOf(20).size()
	s := &Service{plans: map[planKey]*Plan{}, maxBytes: 3 * one}
	key := func(loc string, minute int64) planKey { return planKey{location: loc, minute: minute} }
	s.keep(key("a", 1), planOf(20))
	s.keep(key("b", 1), planOf(20))
	s.keep(key("c", 2), planOf(20))
	if len(s.plans) != 3 || s.bytes != 3*one {
		t.Fatalf("three plans of %d bytes in %d: kept %d, %d bytes; want all 3, %d", one, s.maxBytes, len(s.plans), s.bytes, 3*one)
	}
	s.keep(key("d", 2), planOf(20))
	if _, ok := s.plans[key("a", 1)]; ok || len(s.plans) != 2 || s.bytes != 2*one {
		t.Errorf("a fourth: kept %v (%d bytes); want minute 1's dropped, c and d kept", s.plans, s.bytes)
	}
	s.keep(key("e", 2), planOf(20))
	s.keep(key("f", 2), planOf(20))
	if _, ok := s.plans[key("f", 2)]; !ok || len(s.plans) != 3 || s.bytes > s.maxBytes {
		t.Errorf("this minute's only: kept %d plans, %d bytes; want 3 within %d, the newest among them", len(s.plans), s.bytes, s.maxBytes)
	}
	s.keep(key("big", 3), planOf(80))
	if _, ok := s.plans[key("big", 3)]; !ok || len(s.plans) != 1 {
		t.Errorf("a plan larger than the bound: kept %d plans; want it alone", len(s.plans))
	}
}
