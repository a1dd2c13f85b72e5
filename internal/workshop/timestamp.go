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
func (m Micros) String() string { return string(m.AppendAudit(make([]byte, 0, len(AuditLayout)))) }

// MarshalText makes Micros encode as the audit format in JSON.
func (m Micros) MarshalText() ([]byte, error) {
	return m.AppendAudit(make([]byte, 0, len(AuditLayout))), nil
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

// AppendAudit appends the audit format of m: what m.Time().AppendFormat
// with AuditLayout writes, without the layout interpreter (every job body
// has a dozen of these). Years outside 0-9999 take the slow path.
func (m Micros) AppendAudit(b []byte) []byte {
	secs, frac := divFloor(int64(m), 1_000_000)
	days, sod := divFloor(secs, 86400)
	y, mo, d := civilDate(days)
	if y < 0 || y > 9999 {
		return m.Time().AppendFormat(b, AuditLayout)
	}
	b = appendDigits(b, y, 4)
	b = appendDigits(append(b, '-'), mo, 2)
	b = appendDigits(append(b, '-'), d, 2)
	b = appendDigits(append(b, 'T'), int(sod/3600), 2)
	b = appendDigits(append(b, ':'), int(sod/60%60), 2)
	b = appendDigits(append(b, ':'), int(sod%60), 2)
	b = appendDigits(append(b, '.'), int(frac), 6)
	return append(b, 'Z')
}

// appendDigits writes n (0 <= n < 10^width) in exactly width digits.
func appendDigits(b []byte, n, width int) []byte {
	start := len(b)
	for range width {
		b = append(b, '0')
	}
	for i := len(b) - 1; i >= start; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}
