package oapi

import (
	"time"
	"unicode/utf8"

	"github.com/oapi-codegen/nullable"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Jobs are the most read body of the API (a job read, and through it the
// MCP tool), and encoding/json spends most of a job's cost on its nullable
// and time fields: a MarshalJSON call each, whose output it then scans
// again. AppendJSON writes the bytes encoding/json makes of the generated
// struct, followed by nothing (Encode adds a newline); TestAppendJSON fills
// every field of the types as generated now and compares.

// AppendJSON appends the job as encoding/json writes it (HTML escaped).
func (j Job) AppendJSON(b []byte) []byte {
	b = appendTimeField(b, `{"arrivalTime":`, j.ArrivalTime)
	b = appendMicros(append(b, `,"createdAt":`...), j.CreatedAt)
	b = appendStringField(b, `,"externalKey":`, j.ExternalKey)
	b = appendString(append(b, `,"id":`...), j.Id)
	b = appendString(append(b, `,"jobNumber":`...), j.JobNumber)
	b = appendString(append(b, `,"locationId":`...), j.LocationId)
	b = appendString(append(b, `,"priority":`...), string(j.Priority))
	b = appendTimeField(b, `,"promiseTime":`, j.PromiseTime)
	b = appendString(append(b, `,"source":`...), string(j.Source))
	b = appendString(append(b, `,"status":`...), string(j.Status))
	if j.Steps != nil {
		b = append(b, `,"steps":`...)
		if *j.Steps == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, s := range *j.Steps {
				if i > 0 {
					b = append(b, ',')
				}
				b = s.AppendJSON(b)
			}
			b = append(b, ']')
		}
	}
	b = appendMicros(append(b, `,"updatedAt":`...), j.UpdatedAt)
	b = appendStringField(b, `,"vehicleMake":`, j.VehicleMake)
	b = appendStringField(b, `,"vehicleModel":`, j.VehicleModel)
	b = appendStringField(b, `,"vehiclePlate":`, j.VehiclePlate)
	return append(b, '}')
}

// AppendJSON appends the step as encoding/json writes it (HTML escaped).
func (s Step) AppendJSON(b []byte) []byte {
	b = appendStringField(b, `{"bayId":`, s.BayId)
	b = appendMicrosField(b, `,"completedAt":`, s.CompletedAt)
	b = appendMicros(append(b, `,"createdAt":`...), s.CreatedAt)
	b = appendInt(append(b, `,"estimatedDuration":`...), s.EstimatedDuration)
	b = appendString(append(b, `,"id":`...), s.Id)
	b = appendString(append(b, `,"jobId":`...), s.JobId)
	b = appendString(append(b, `,"label":`...), s.Label)
	b = appendInt(append(b, `,"phase":`...), s.Phase)
	b = appendString(append(b, `,"schedulingMode":`...), string(s.SchedulingMode))
	b = appendMicrosField(b, `,"startedAt":`, s.StartedAt)
	b = appendString(append(b, `,"status":`...), string(s.Status))
	b = append(b, `,"techIds":`...)
	if s.TechIds == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range s.TechIds {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
		}
		b = append(b, ']')
	}
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// The nullable fields: null, or the value; a field never set writes its
// zero value, as nullable.Nullable's own MarshalJSON does.

func appendStringField(b []byte, key string, n nullable.Nullable[string]) []byte {
	b = append(b, key...)
	if n.IsNull() {
		return append(b, "null"...)
	}
	return appendString(b, n[true])
}

func appendTimeField(b []byte, key string, n nullable.Nullable[time.Time]) []byte {
	b = append(b, key...)
	if n.IsNull() {
		return append(b, "null"...)
	}
	t := n[true]
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func appendMicrosField(b []byte, key string, n nullable.Nullable[workshop.Micros]) []byte {
	b = append(b, key...)
	if n.IsNull() {
		return append(b, "null"...)
	}
	return appendMicros(b, n[true])
}

// appendMicros writes an audit timestamp as its MarshalText does.
func appendMicros(b []byte, m workshop.Micros) []byte {
	b = append(b, '"')
	b = m.Time().AppendFormat(b, workshop.AuditLayout)
	return append(b, '"')
}

func appendInt(b []byte, n int) []byte {
	if n < 0 {
		b = append(b, '-')
		return appendUint(b, uint64(-int64(n)))
	}
	return appendUint(b, uint64(n))
}

func appendUint(b []byte, n uint64) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping on: <, >
// and & as \u003c..., control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
