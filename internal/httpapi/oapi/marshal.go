package oapi

import (
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/internal/jsonenc"
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
	b = jsonenc.String(append(b, `,"id":`...), j.Id)
	b = jsonenc.String(append(b, `,"jobNumber":`...), j.JobNumber)
	b = jsonenc.String(append(b, `,"locationId":`...), j.LocationId)
	b = jsonenc.String(append(b, `,"priority":`...), string(j.Priority))
	b = appendTimeField(b, `,"promiseTime":`, j.PromiseTime)
	b = jsonenc.String(append(b, `,"source":`...), string(j.Source))
	b = jsonenc.String(append(b, `,"status":`...), string(j.Status))
	if j.Steps != nil {
		b = jsonenc.List(append(b, `,"steps":`...), *j.Steps, Step.AppendJSON)
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
	b = jsonenc.String(append(b, `,"id":`...), s.Id)
	b = jsonenc.String(append(b, `,"jobId":`...), s.JobId)
	b = jsonenc.String(append(b, `,"label":`...), s.Label)
	b = appendInt(append(b, `,"phase":`...), s.Phase)
	b = jsonenc.String(append(b, `,"schedulingMode":`...), string(s.SchedulingMode))
	b = appendMicrosField(b, `,"startedAt":`, s.StartedAt)
	b = jsonenc.String(append(b, `,"status":`...), string(s.Status))
	b = jsonenc.Strings(append(b, `,"techIds":`...), s.TechIds)
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// AppendJSON appends the job detail as encoding/json writes it.
func (d JobDetail) AppendJSON(b []byte) []byte {
	b = appendTimeField(b, `{"actualEnd":`, d.ActualEnd)
	b = appendTimeField(b, `,"actualStart":`, d.ActualStart)
	b = appendTimeField(b, `,"arrivalTime":`, d.ArrivalTime)
	b = appendMicros(append(b, `,"createdAt":`...), d.CreatedAt)
	b = jsonenc.List(append(b, `,"delays":`...), d.Delays, Delay.AppendJSON)
	b = appendStringField(b, `,"externalKey":`, d.ExternalKey)
	b = jsonenc.List(append(b, `,"holds":`...), d.Holds, Hold.AppendJSON)
	b = jsonenc.String(append(b, `,"id":`...), d.Id)
	b = jsonenc.String(append(b, `,"jobNumber":`...), d.JobNumber)
	b = jsonenc.String(append(b, `,"locationId":`...), d.LocationId)
	b = appendTime(append(b, `,"plannedEnd":`...), d.PlannedEnd)
	b = appendTime(append(b, `,"plannedStart":`...), d.PlannedStart)
	b = jsonenc.String(append(b, `,"priority":`...), string(d.Priority))
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
	b = jsonenc.String(append(b, `,"source":`...), string(d.Source))
	b = jsonenc.String(append(b, `,"status":`...), string(d.Status))
	b = jsonenc.List(append(b, `,"steps":`...), d.Steps, StepDetail.AppendJSON)
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
	b = jsonenc.String(append(b, `,"id":`...), s.Id)
	b = jsonenc.String(append(b, `,"jobId":`...), s.JobId)
	b = jsonenc.String(append(b, `,"label":`...), s.Label)
	b = appendInt(append(b, `,"phase":`...), s.Phase)
	b = appendTime(append(b, `,"plannedEnd":`...), s.PlannedEnd)
	b = appendTime(append(b, `,"plannedStart":`...), s.PlannedStart)
	b = appendTime(append(b, `,"projectedEnd":`...), s.ProjectedEnd)
	b = jsonenc.String(append(b, `,"schedulingMode":`...), string(s.SchedulingMode))
	b = appendMicrosField(b, `,"startedAt":`, s.StartedAt)
	b = jsonenc.String(append(b, `,"status":`...), string(s.Status))
	b = jsonenc.Strings(append(b, `,"techIds":`...), s.TechIds)
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// AppendJSON appends the delay as encoding/json writes it.
func (d Delay) AppendJSON(b []byte) []byte {
	b = appendTime(append(b, `{"end":`...), d.End)
	b = appendInt(append(b, `,"minutes":`...), d.Minutes)
	b = appendBool(append(b, `,"ongoing":`...), d.Ongoing)
	b = appendTime(append(b, `,"plannedEnd":`...), d.PlannedEnd)
	b = jsonenc.String(append(b, `,"stepId":`...), d.StepId)
	return append(b, '}')
}

// AppendJSON appends the hold as encoding/json writes it.
func (h Hold) AppendJSON(b []byte) []byte {
	b = appendTimeField(b, `{"end":`, h.End)
	b = jsonenc.String(append(b, `,"reason":`...), string(h.Reason))
	b = appendTime(append(b, `,"start":`...), h.Start)
	return append(b, '}')
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
	return jsonenc.String(b, n[true])
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
	return append(m.AppendAudit(append(b, '"')), '"')
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
