package httpapi

import (
	"strconv"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/jsonenc"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Jobs and their detail are the most read bodies of the API (and through
// them the MCP tools), and encoding/json spends most of a job's cost on its nullable
// and time fields: a MarshalJSON call each, whose output it then scans
// again. The append functions write the bytes encoding/json makes of the
// generated struct, followed by nothing (Encode adds a newline); TestAppendJSON fills
// every field of the types as generated now and compares.

// appendJob appends the job as encoding/json writes it (HTML escaped).
func appendJob(b []byte, j oapi.Job) []byte {
	b = appendNullable(b, `{"arrivalTime":`, j.ArrivalTime, appendTime)
	b = jsonenc.Strings(append(b, `,"cancelReasonTags":`...), j.CancelReasonTags)
	b = appendNullable(b, `,"cancelledAt":`, j.CancelledAt, appendMicros)
	b = appendMicros(append(b, `,"createdAt":`...), j.CreatedAt)
	b = appendNullable(b, `,"customerEmail":`, j.CustomerEmail, jsonenc.String)
	b = appendNullable(b, `,"customerName":`, j.CustomerName, jsonenc.String)
	b = appendNullable(b, `,"customerPhone":`, j.CustomerPhone, jsonenc.String)
	b = appendNullable(b, `,"deliveredAt":`, j.DeliveredAt, appendMicros)
	b = appendNullable(b, `,"expectedArrival":`, j.ExpectedArrival, appendTime)
	b = appendNullable(b, `,"externalKey":`, j.ExternalKey, jsonenc.String)
	b = jsonenc.String(append(b, `,"id":`...), j.Id)
	b = jsonenc.String(append(b, `,"jobNumber":`...), j.JobNumber)
	b = jsonenc.String(append(b, `,"locationId":`...), j.LocationId)
	b = jsonenc.String(append(b, `,"priority":`...), string(j.Priority))
	b = appendNullable(b, `,"promiseTime":`, j.PromiseTime, appendTime)
	b = jsonenc.String(append(b, `,"source":`...), string(j.Source))
	b = jsonenc.String(append(b, `,"status":`...), string(j.Status))
	if j.Steps != nil {
		b = jsonenc.List(append(b, `,"steps":`...), *j.Steps, appendStep)
	}
	b = appendMicros(append(b, `,"updatedAt":`...), j.UpdatedAt)
	b = appendNullable(b, `,"vehicleMake":`, j.VehicleMake, jsonenc.String)
	b = appendNullable(b, `,"vehicleModel":`, j.VehicleModel, jsonenc.String)
	b = appendNullable(b, `,"vehiclePlate":`, j.VehiclePlate, jsonenc.String)
	return append(b, '}')
}

// appendStep appends the step as encoding/json writes it (HTML escaped).
func appendStep(b []byte, s oapi.Step) []byte {
	b = appendNullable(b, `{"bayId":`, s.BayId, jsonenc.String)
	b = appendNullable(b, `,"completedAt":`, s.CompletedAt, appendMicros)
	b = appendMicros(append(b, `,"createdAt":`...), s.CreatedAt)
	b = appendInt(append(b, `,"estimatedDuration":`...), s.EstimatedDuration)
	b = jsonenc.String(append(b, `,"id":`...), s.Id)
	b = jsonenc.String(append(b, `,"jobId":`...), s.JobId)
	b = jsonenc.String(append(b, `,"label":`...), s.Label)
	b = appendNullable(b, `,"notBefore":`, s.NotBefore, appendTime)
	b = appendInt(append(b, `,"phase":`...), s.Phase)
	b = jsonenc.String(append(b, `,"schedulingMode":`...), string(s.SchedulingMode))
	b = appendNullable(b, `,"serviceCode":`, s.ServiceCode, jsonenc.String)
	b = appendNullable(b, `,"startedAt":`, s.StartedAt, appendMicros)
	b = jsonenc.String(append(b, `,"status":`...), string(s.Status))
	b = jsonenc.Strings(append(b, `,"techIds":`...), s.TechIds)
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// appendJobDetail appends the job detail as encoding/json writes it.
func appendJobDetail(b []byte, d oapi.JobDetail) []byte {
	b = appendNullable(b, `{"actualEnd":`, d.ActualEnd, appendTime)
	b = appendNullable(b, `,"actualStart":`, d.ActualStart, appendTime)
	b = appendNullable(b, `,"arrivalTime":`, d.ArrivalTime, appendTime)
	b = jsonenc.Strings(append(b, `,"cancelReasonTags":`...), d.CancelReasonTags)
	b = appendNullable(b, `,"cancelledAt":`, d.CancelledAt, appendMicros)
	b = appendMicros(append(b, `,"createdAt":`...), d.CreatedAt)
	b = appendNullable(b, `,"customerEmail":`, d.CustomerEmail, jsonenc.String)
	b = appendNullable(b, `,"customerName":`, d.CustomerName, jsonenc.String)
	b = appendNullable(b, `,"customerPhone":`, d.CustomerPhone, jsonenc.String)
	b = jsonenc.List(append(b, `,"delays":`...), d.Delays, appendDelay)
	b = appendNullable(b, `,"deliveredAt":`, d.DeliveredAt, appendMicros)
	b = appendNullable(b, `,"expectedArrival":`, d.ExpectedArrival, appendTime)
	b = appendNullable(b, `,"externalKey":`, d.ExternalKey, jsonenc.String)
	b = jsonenc.List(append(b, `,"holds":`...), d.Holds, appendHold)
	b = jsonenc.String(append(b, `,"id":`...), d.Id)
	b = jsonenc.String(append(b, `,"jobNumber":`...), d.JobNumber)
	b = jsonenc.String(append(b, `,"locationId":`...), d.LocationId)
	b = appendNullable(b, `,"plannedEnd":`, d.PlannedEnd, appendTime)
	b = appendNullable(b, `,"plannedStart":`, d.PlannedStart, appendTime)
	b = jsonenc.String(append(b, `,"priority":`...), string(d.Priority))
	b = appendBool(append(b, `,"promise":{"atRisk":`...), d.Promise.AtRisk)
	b = appendNullable(b, `,"projectedCompletion":`, d.Promise.ProjectedCompletion, appendTime)
	b = appendNullable(b, `,"promiseTime":`, d.Promise.PromiseTime, appendTime)
	b = appendNullable(b, `,"slackMinutes":`, d.Promise.SlackMinutes, appendInt)
	b = appendNullable(append(b, '}'), `,"promiseTime":`, d.PromiseTime, appendTime)
	b = jsonenc.String(append(b, `,"source":`...), string(d.Source))
	b = jsonenc.String(append(b, `,"status":`...), string(d.Status))
	b = jsonenc.List(append(b, `,"steps":`...), d.Steps, appendStepDetail)
	b = appendMicros(append(b, `,"updatedAt":`...), d.UpdatedAt)
	b = appendNullable(b, `,"vehicleMake":`, d.VehicleMake, jsonenc.String)
	b = appendNullable(b, `,"vehicleModel":`, d.VehicleModel, jsonenc.String)
	b = appendNullable(b, `,"vehiclePlate":`, d.VehiclePlate, jsonenc.String)
	b = appendBool(append(b, `,"verification":{"verified":`...), d.Verification.Verified)
	b = appendNullable(b, `,"verifiedAt":`, d.Verification.VerifiedAt, appendMicros)
	b = appendNullable(b, `,"verifiedBy":`, d.Verification.VerifiedBy, jsonenc.String)
	return append(b, "}}"...)
}

// appendStepDetail appends the step's detail as encoding/json writes it.
func appendStepDetail(b []byte, s oapi.StepDetail) []byte {
	b = appendNullable(b, `{"actualEnd":`, s.ActualEnd, appendTime)
	b = appendNullable(b, `,"actualStart":`, s.ActualStart, appendTime)
	b = appendNullable(b, `,"bayId":`, s.BayId, jsonenc.String)
	b = appendNullable(b, `,"completedAt":`, s.CompletedAt, appendMicros)
	b = appendMicros(append(b, `,"createdAt":`...), s.CreatedAt)
	b = appendInt(append(b, `,"estimatedDuration":`...), s.EstimatedDuration)
	b = jsonenc.String(append(b, `,"id":`...), s.Id)
	b = jsonenc.String(append(b, `,"jobId":`...), s.JobId)
	b = jsonenc.String(append(b, `,"label":`...), s.Label)
	b = appendNullable(b, `,"notBefore":`, s.NotBefore, appendTime)
	b = appendInt(append(b, `,"phase":`...), s.Phase)
	b = appendNullable(b, `,"plannedEnd":`, s.PlannedEnd, appendTime)
	b = appendNullable(b, `,"plannedStart":`, s.PlannedStart, appendTime)
	b = appendNullable(b, `,"projectedEnd":`, s.ProjectedEnd, appendTime)
	b = jsonenc.String(append(b, `,"schedulingMode":`...), string(s.SchedulingMode))
	b = appendNullable(b, `,"serviceCode":`, s.ServiceCode, jsonenc.String)
	b = appendNullable(b, `,"startedAt":`, s.StartedAt, appendMicros)
	b = jsonenc.String(append(b, `,"status":`...), string(s.Status))
	b = jsonenc.Strings(append(b, `,"techIds":`...), s.TechIds)
	b = appendMicros(append(b, `,"updatedAt":`...), s.UpdatedAt)
	return append(b, '}')
}

// appendDelay appends the delay as encoding/json writes it.
func appendDelay(b []byte, d oapi.Delay) []byte {
	b = appendTime(append(b, `{"end":`...), d.End)
	b = appendInt(append(b, `,"minutes":`...), d.Minutes)
	b = appendBool(append(b, `,"ongoing":`...), d.Ongoing)
	b = appendTime(append(b, `,"plannedEnd":`...), d.PlannedEnd)
	b = jsonenc.String(append(b, `,"stepId":`...), d.StepId)
	return append(b, '}')
}

// appendHold appends the hold as encoding/json writes it.
func appendHold(b []byte, h oapi.Hold) []byte {
	b = appendNullable(b, `{"end":`, h.End, appendTime)
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

// appendNullable writes a nullable field: its key, then null or the value
// (a field never set writes its zero value, as nullable.Nullable's own
// MarshalJSON does).
func appendNullable[T any](b []byte, key string, n nullable.Nullable[T], appendValue func([]byte, T) []byte) []byte {
	b = append(b, key...)
	if n.IsNull() {
		return append(b, "null"...)
	}
	return appendValue(b, n[true])
}

// appendTime writes a time as its MarshalJSON does (RFC 3339, nanoseconds
// as needed).
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendMicros writes an audit timestamp as its MarshalText does.
func appendMicros(b []byte, m workshop.Micros) []byte {
	return append(m.AppendAudit(append(b, '"')), '"')
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }
