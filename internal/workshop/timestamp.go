package workshop

import (
	"time"
)

// AuditLayout is the one format of createdAt, updatedAt and occurredAt: UTC
// with exactly six fractional digits (contract section 2).
const AuditLayout = "2006-01-02T15:04:05.000000Z"

// Micros is an audit timestamp: microseconds since the Unix epoch, UTC. The
// stores keep it as a 64-bit integer on every database, so comparisons,
// ordering and cursors are exact and identical on SQLite and PostgreSQL.
type Micros int64

// MicrosOf truncates t to the microsecond.
func MicrosOf(t time.Time) Micros { return Micros(t.UnixMicro()) }

// Time is the instant in UTC.
func (m Micros) Time() time.Time { return time.UnixMicro(int64(m)).UTC() }

// String is the audit format.
func (m Micros) String() string { return m.Time().Format(AuditLayout) }

// MarshalText makes Micros encode as the audit format in JSON.
func (m Micros) MarshalText() ([]byte, error) {
	return m.Time().AppendFormat(make([]byte, 0, len(AuditLayout)), AuditLayout), nil
}

// UnmarshalText accepts any RFC 3339 instant; a sent updatedAt matches when
// it denotes the same instant, whatever its offset or precision.
func (m *Micros) UnmarshalText(b []byte) error {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return err
	}
	*m = MicrosOf(t)
	return nil
}

// NextMicros is the updatedAt of a change made at now to a record last
// changed at prev: now, or one microsecond after prev when the clock has not
// moved on (or went back), so every change gets a strictly later updatedAt.
func NextMicros(now time.Time, prev Micros) Micros {
	m := MicrosOf(now)
	if m <= prev {
		return prev + 1
	}
	return m
}
