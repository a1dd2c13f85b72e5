package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// PlanAnchor is a location's anchor as stored (contract section 8, "Re-plans
// move only what must move"): the plan last computed for a reader, with
// the plan version and minute it was computed at.
type PlanAnchor struct {
	Version, Minute int64            `json:"-"`
	Start           time.Time        `json:"start"`
	Steps           []PlanAnchorStep `json:"steps"`
}

// PlanAnchorStep is where the anchor placed a pending step, with the
// step's updatedAt then: a step written to since is free again.
type PlanAnchorStep struct {
	StepID    string          `json:"stepId"`
	TechIDs   []string        `json:"techIds"`
	BayID     string          `json:"bayId,omitempty"`
	Start     time.Time       `json:"start"`
	UpdatedAt workshop.Micros `json:"updatedAt"`
}

// Before reports whether a was computed before the plan of version at
// minute: an older version, or the same in an earlier minute.
func (a *PlanAnchor) Before(version, minute int64) bool {
	return a.Version < version || a.Version == version && a.Minute < minute
}

// PlanAnchors reads a location's anchor and the one before it (nil when
// there is none).
func (s *Store) PlanAnchors(ctx context.Context, locationID string) (current, previous *PlanAnchor, err error) {
	var cur, prev PlanAnchor
	var curBody, prevBody string
	err = s.read().queryRow(ctx, `SELECT version, minute, body, prev_version, prev_minute, prev_body FROM plan_anchors WHERE location_id = ?`,
		locationID).Scan(&cur.Version, &cur.Minute, &curBody, &prev.Version, &prev.Minute, &prevBody)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal([]byte(curBody), &cur); err != nil {
		return nil, nil, err
	}
	if prevBody == "" {
		return &cur, nil, nil
	}
	if err := json.Unmarshal([]byte(prevBody), &prev); err != nil {
		return nil, nil, err
	}
	return &cur, &prev, nil
}

// SavePlanAnchor stores a as the location's anchor unless the stored one
// was computed at the same or a later version and minute; the one it
// replaces becomes the one before. It moves no plan version.
func (s *Store) SavePlanAnchor(ctx context.Context, locationID string, a PlanAnchor) error {
	_, err := write(ctx, s, func(c conn) (struct{}, error) {
		_, err := c.exec(ctx, `INSERT INTO plan_anchors (location_id, version, minute, body, prev_version, prev_minute, prev_body)
			VALUES (?, ?, ?, ?, 0, 0, '') ON CONFLICT (location_id) DO UPDATE SET
			prev_version = plan_anchors.version, prev_minute = plan_anchors.minute, prev_body = plan_anchors.body,
			version = excluded.version, minute = excluded.minute, body = excluded.body
			WHERE plan_anchors.version < excluded.version OR plan_anchors.version = excluded.version AND plan_anchors.minute < excluded.minute`,
			locationID, a.Version, a.Minute, jsonText(a))
		return struct{}{}, err
	})
	return err
}
