package store

import (
	"strings"
	"testing"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// TestOpenNotReadyMatchesLate checks the SQL list of statuses that can
// be late against the domain's rule: a job with a passed promise is late
// exactly when its status is in the list.
func TestOpenNotReadyMatchesLate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	passed := &workshop.OffsetTime{Time: now.Add(-time.Hour)}
	for _, status := range workshop.JobStatuses {
		inList := strings.Contains(openNotReady, "'"+status+"'")
		if late := workshop.Late(status, passed, now); late != inList {
			t.Errorf("status %q: workshop.Late = %v, in openNotReady = %v", status, late, inList)
		}
	}
}
