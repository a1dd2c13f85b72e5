package oapi

import (
	"time"
	"unicode/utf8"

	"github.com/oapi-codegen/nullable"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Jobs and their detail are the most read bodies of the API (and through
// them the MCP tools), and encoding/json spends most of a job's cost on its nullable
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
		b = appendList(append(b, `,"steps":`...), *j.Steps, Step.AppendJSON)
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
	b = appendStrings(append(b, `,"techIds":`...), s.TechIds)
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// AppendJSON appends the job detail as encoding/json writes it.
func (d JobDetail) AppendJSON(b []byte) []byte {
	b = appendTimeField(b, `{"actualEnd":`, d.ActualEnd)
	b = appendTimeField(b, `,"actualStart":`, d.ActualStart)
	b = appendTimeField(b, `,"arrivalTime":`, d.ArrivalTime)
	b = appendMicros(append(b, `,"createdAt":`...), d.CreatedAt)
	b = appendList(append(b, `,"delays":`...), d.Delays, Delay.AppendJSON)
	b = appendStringField(b, `,"externalKey":`, d.ExternalKey)
	b = appendList(append(b, `,"holds":`...), d.Holds, Hold.AppendJSON)
	b = appendString(append(b, `,"id":`...), d.Id)
	b = appendString(append(b, `,"jobNumber":`...), d.JobNumber)
	b = appendString(append(b, `,"locationId":`...), d.LocationId)
	b = appendTime(append(b, `,"plannedEnd":`...), d.PlannedEnd)
	b = appendTime(append(b, `,"plannedStart":`...), d.PlannedStart)
	b = appendString(append(b, `,"priority":`...), string(d.Priority))
	b = appendBool(append(b, `,"promise":{"atRisk":`...), d.Promise.AtRisk)
	b = appendTime(append(b, `,"projectedCompletion":`...), d.Promise.ProjectedCompletion)
	b = appendTimeField(b, `,"promiseTime":`, d.Promise.PromiseTime)
	b = append(b, `,"slackMinutes":`...)
	if d.Promise.SlackMinutes.IsNull() {
		b = append(b, "null"...)
	} else {
		b = appendInt(b, d.Promise.SlackMinutes[true])
	}
	b = appendTimeField(append(b, '}'), `,"promiseTime":`, d.PromiseTime)
	b = appendString(append(b, `,"source":`...), string(d.Source))
	b = appendString(append(b, `,"status":`...), string(d.Status))
	b = appendList(append(b, `,"steps":`...), d.Steps, StepDetail.AppendJSON)
	b = appendMicros(append(b, `,"updatedAt":`...), d.UpdatedAt)
	b = appendStringField(b, `,"vehicleMake":`, d.VehicleMake)
	b = appendStringField(b, `,"vehicleModel":`, d.VehicleModel)
	b = appendStringField(b, `,"vehiclePlate":`, d.VehiclePlate)
	b = appendBool(append(b, `,"verification":{"verified":`...), d.Verification.Verified)
	b = appendMicrosField(b, `,"verifiedAt":`, d.Verification.VerifiedAt)
	b = appendStringField(b, `,"verifiedBy":`, d.Verification.VerifiedBy)
	return append(b, "}}"...)
}

// AppendJSON appends the step's detail as encoding/json writes it.
func (s StepDetail) AppendJSON(b []byte) []byte {
	b = appendTimeField(b, `{"actualEnd":`, s.ActualEnd)
	b = appendTimeField(b, `,"actualStart":`, s.ActualStart)
	b = appendStringField(b, `,"bayId":`, s.BayId)
	b = appendMicrosField(b, `,"completedAt":`, s.CompletedAt)
	b = appendMicros(append(b, `,"createdAt":`...), s.CreatedAt)
	b = appendInt(append(b, `,"estimatedDuration":`...), s.EstimatedDuration)
	b = appendString(append(b, `,"id":`...), s.Id)
	b = appendString(append(b, `,"jobId":`...), s.JobId)
	b = appendString(append(b, `,"label":`...), s.Label)
	b = appendInt(append(b, `,"phase":`...), s.Phase)
	b = appendTime(append(b, `,"plannedEnd":`...), s.PlannedEnd)
	b = appendTime(append(b, `,"plannedStart":`...), s.PlannedStart)
	b = appendTime(append(b, `,"projectedEnd":`...), s.ProjectedEnd)
	b = appendString(append(b, `,"schedulingMode":`...), string(s.SchedulingMode))
	b = appendMicrosField(b, `,"startedAt":`, s.StartedAt)
	b = appendString(append(b, `,"status":`...), string(s.Status))
	b = appendStrings(append(b, `,"techIds":`...), s.TechIds)
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// AppendJSON appends the delay as encoding/json writes it.
func (d Delay) AppendJSON(b []byte) []byte {
	b = appendTime(append(b, `{"end":`...), d.End)
	b = appendInt(append(b, `,"minutes":`...), d.Minutes)
	b = appendBool(append(b, `,"ongoing":`...), d.Ongoing)
	b = appendTime(append(b, `,"plannedEnd":`...), d.PlannedEnd)
	b = appendString(append(b, `,"stepId":`...), d.StepId)
	return append(b, '}')
}

// AppendJSON appends the hold as encoding/json writes it.
func (h Hold) AppendJSON(b []byte) []byte {
	b = appendTimeField(b, `{"end":`, h.End)
	b = appendString(append(b, `,"reason":`...), string(h.Reason))
	b = appendTime(append(b, `,"start":`...), h.Start)
	return append(b, '}')
}

// appendList writes a slice as encoding/json does: null when nil.
func appendList[T any](b []byte, list []T, appendOne func(T, []byte) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendOne(v, b)
	}
	return append(b, ']')
}

func appendStrings(b []byte, list []string) []byte {
	return appendList(b, list, func(s string, b []byte) []byte { return appendString(b, s) })
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
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
	return appendTime(b, n[true])
}

// appendTime writes a time as its MarshalJSON does (RFC 3339, nanoseconds
// as needed).
func appendTime(b []byte, t time.Time) []byte {
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
