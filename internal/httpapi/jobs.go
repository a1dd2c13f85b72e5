package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// JobStore is what the job and step operations need.
type JobStore interface {
	CreateJob(ctx context.Context, j workshop.Job, stampArrival bool, opts ...store.WriteOption) (store.JobCreate, error)
	Job(ctx context.Context, v store.Visibility, id string) (workshop.Job, error)
	Jobs(ctx context.Context, f store.JobFilter, p workshop.PageRequest) (workshop.Page[workshop.Job], error)
	JobByExternalKey(ctx context.Context, v store.Visibility, integrationID, externalKey string) (workshop.Job, error)
	PatchJob(ctx context.Context, v store.Visibility, id string, p store.JobPatch, now workshop.Micros) (workshop.Job, error)
	CreateStep(ctx context.Context, v store.Visibility, st workshop.Step, opts ...store.WriteOption) (workshop.Step, error)
	PatchStep(ctx context.Context, v store.Visibility, jobID, stepID string, p store.StepPatch, now workshop.Micros) (workshop.Step, error)
	DeliverJob(ctx context.Context, v store.Visibility, id string, now workshop.Micros, opts ...store.WriteOption) (workshop.Job, error)
	CancelJob(ctx context.Context, v store.Visibility, id string, tags []string, now workshop.Micros, opts ...store.WriteOption) (workshop.Job, error)
	CancelTags(ctx context.Context, locationID string) ([]workshop.CancelTag, error)
	Location(ctx context.Context, orgID, id string) (workshop.Location, error)
}

func visibility(p *workshop.Principal) store.Visibility {
	return store.Visibility{OrgID: p.OrgID, LocationID: p.LocationID}
}

func jobOf(j workshop.Job) oapi.Job {
	out := oapi.Job{Id: j.ID, LocationId: j.LocationID, ExternalKey: nullableOf(j.ExternalKey), JobNumber: j.JobNumber,
		VehiclePlate: nullableOf(j.VehiclePlate), VehicleMake: nullableOf(j.VehicleMake), VehicleModel: nullableOf(j.VehicleModel),
		PromiseTime: nullableTime(j.PromiseTime), Priority: oapi.Priority(j.Priority), Source: oapi.Source(j.Source),
		ArrivalTime: nullableTime(j.ArrivalTime), Status: oapi.JobStatus(j.Status), CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
		DeliveredAt: nullableMicros(j.DeliveredAt), CancelledAt: nullableMicros(j.CancelledAt), CancelReasonTags: nonNilList(j.CancelReasons),
		ExpectedArrival: nullableOf(j.ExpectedArrival), CustomerName: nullableOf(j.CustomerName), CustomerPhone: nullableOf(j.CustomerPhone),
		CustomerEmail: nullableOf(j.CustomerEmail)}
	if j.Steps != nil {
		steps := mapList(j.Steps, stepOf)
		out.Steps = &steps
	}
	return out
}

func stepOf(st workshop.Step) oapi.Step {
	return oapi.Step{Id: st.ID, JobId: st.JobID, Label: st.Label, Phase: st.Phase, SchedulingMode: oapi.SchedulingMode(st.SchedulingMode),
		EstimatedDuration: st.EstimatedDuration, TechIds: nonNilList(st.TechIDs), BayId: nullableOf(st.BayID),
		ServiceCode: nullableOf(st.ServiceCode), NotBefore: nullableTime(st.NotBefore), Status: oapi.StepStatus(st.Status),
		StartedAt: nullableMicros(st.StartedAt), CompletedAt: nullableMicros(st.CompletedAt), CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt}
}

func nullableOf[T any](p *T) nullable.Nullable[T] {
	if p == nil {
		return nullOf[T]()
	}
	return nullable.NewNullableWithValue(*p)
}

func nullableTime(t *workshop.OffsetTime) nullable.Nullable[time.Time] {
	if t == nil {
		return nullOf[time.Time]()
	}
	return nullable.NewNullableWithValue(t.Time)
}

// Explicit nulls of the response types. A Nullable is a map, and each
// NewNullNullable allocates one; a response only reads its fields (Set
// replaces the map, it does not write to it), so one null of each type
// serves them all.
var (
	nullString = nullable.NewNullNullable[string]()
	nullTime   = nullable.NewNullNullable[time.Time]()
	nullMicros = nullable.NewNullNullable[workshop.Micros]()
	nullInt    = nullable.NewNullNullable[int]()
)

// nullOf is the explicit null of T, shared for the types above.
func nullOf[T any]() nullable.Nullable[T] {
	switch any(nullable.Nullable[T](nil)).(type) {
	case nullable.Nullable[string]:
		return any(nullString).(nullable.Nullable[T])
	case nullable.Nullable[time.Time]:
		return any(nullTime).(nullable.Nullable[T])
	case nullable.Nullable[workshop.Micros]:
		return any(nullMicros).(nullable.Nullable[T])
	case nullable.Nullable[int]:
		return any(nullInt).(nullable.Nullable[T])
	default:
		return nullable.NewNullNullable[T]()
	}
}

func nullableMicros(m *workshop.Micros) nullable.Nullable[oapi.NullableAuditTimestamp] {
	return nullableOf(m)
}

// microsPtr is a sent instant as the store keeps it, nil when omitted.
func microsPtr(t *time.Time) *workshop.Micros {
	if t == nil {
		return nil
	}
	m := workshop.MicrosOf(*t)
	return &m
}

func nonNilList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// arrivalOf applies the three-way arrival rule of a create or a PATCH:
// omitted, null or a value that is not in the future beyond the skew.
func (h *handlers) arrivalOf(n nullable.Nullable[time.Time]) (*workshop.OffsetTime, error) {
	if !n.IsSpecified() || n.IsNull() {
		return nil, nil
	}
	at := n.MustGet()
	if err := workshop.CheckArrival("arrivalTime", at, h.now(), h.arrivalSkew); err != nil {
		return nil, err
	}
	return &workshop.OffsetTime{Time: at}, nil
}

func offsetOf(n nullable.Nullable[time.Time]) *workshop.OffsetTime {
	if !n.IsSpecified() || n.IsNull() {
		return nil
	}
	return &workshop.OffsetTime{Time: n.MustGet()}
}

func (h *handlers) CreateJob(ctx context.Context, req oapi.CreateJobRequestObject) (oapi.CreateJobResponseObject, error) {
	p, b := principalOf(ctx), req.Body
	loc, err := p.ResolveLocation(deref(b.LocationId), true)
	if err != nil {
		return nil, err
	}
	var v workshop.Validation
	if b.JobNumber != nil {
		_ = v.Check(workshop.CheckJobNumber(*b.JobNumber))
	}
	arrival, err := h.arrivalOf(b.ArrivalTime)
	if err := v.Check(err); err != nil {
		return nil, err
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := workshop.MicrosOf(h.now())
	j := workshop.Job{ID: workshop.NewID(workshop.PrefixJob), OrgID: p.OrgID, LocationID: loc, IntegrationID: p.IntegrationID,
		ExternalKey: b.ExternalKey, JobNumber: deref(b.JobNumber), VehiclePlate: b.VehiclePlate, VehicleMake: b.VehicleMake,
		VehicleModel: b.VehicleModel, PromiseTime: offsetOf(b.PromiseTime), Priority: "normal", Source: "other",
		ArrivalTime: arrival, CreatedAt: now, UpdatedAt: now, Steps: []workshop.Step{},
		ExpectedArrival: valueOf(b.ExpectedArrival), CustomerName: valueOf(b.CustomerName), CustomerPhone: valueOf(b.CustomerPhone),
		CustomerEmail: valueOf(b.CustomerEmail)}
	if b.Priority != nil {
		j.Priority = string(*b.Priority)
	}
	if b.Source != nil {
		j.Source = string(*b.Source)
	}
	res, err := h.store.CreateJob(ctx, j, !b.ArrivalTime.IsSpecified(), storeResponseInTx(ctx, presentCreated))
	if err != nil {
		return nil, err
	}
	return appended{status: createdStatus(res), body: jobOf(res.Job), size: jobSize}, nil
}

func presentCreated(res store.JobCreate) (int, any) { return createdStatus(res), jobOf(res.Job) }

// createdStatus is 201 for a new job, 200 for the existing job of its
// externalKey.
func createdStatus(res store.JobCreate) int {
	if res.Created {
		return http.StatusCreated
	}
	return http.StatusOK
}

// existingJob answers a job create whose externalKey exists with the stored
// job (200) before anything else about the body is checked: a repeated
// create returns what the first made, whatever the repeat says.
func (s *Server) existingJob(w http.ResponseWriter, r *http.Request, key string) bool {
	if key == "" {
		return false
	}
	p := principalOf(r.Context())
	j, err := s.store.JobByExternalKey(r.Context(), visibility(p), p.IntegrationID, key)
	if err != nil {
		return false // absent (or not visible): the create proceeds and decides
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(jobOf(j))
	return true
}

func (h *handlers) GetJob(ctx context.Context, req oapi.GetJobRequestObject) (oapi.GetJobResponseObject, error) {
	j, err := h.store.Job(ctx, visibility(principalOf(ctx)), req.JobId)
	if err != nil {
		return nil, err
	}
	return appended{status: http.StatusOK, etag: etagOf(j.UpdatedAt), body: jobOf(j), size: jobSize}, nil
}

func (h *handlers) ListJobs(ctx context.Context, req oapi.ListJobsRequestObject) (oapi.ListJobsResponseObject, error) {
	p, q := principalOf(ctx), req.Params
	page, err := workshop.ParsePageRequest(q.Limit, deref(q.Cursor))
	if err != nil {
		return nil, err
	}
	loc, err := h.locationParam(ctx, p, deref(q.LocationId), false)
	if err != nil {
		return nil, err
	}
	f := store.JobFilter{Visibility: store.Visibility{OrgID: p.OrgID, LocationID: loc}, ExternalKey: q.ExternalKey, IntegrationID: p.IntegrationID}
	if q.Status != nil {
		for _, st := range strings.Split(*q.Status, ",") {
			st = strings.TrimSpace(st)
			if !slices.Contains(workshop.JobStatuses, st) {
				return nil, &workshop.Error{Code: workshop.CodeInvalidParameter, Field: "status",
					Detail: "status " + st + " is not a job status: " + strings.Join(workshop.JobStatuses, ", ") + "."}
			}
			f.Statuses = append(f.Statuses, st)
		}
	}
	if q.UpdatedSince != nil {
		m := workshop.MicrosOf(*q.UpdatedSince)
		f.UpdatedSince = &m
	}
	list, err := h.store.Jobs(ctx, f, page)
	if err != nil {
		return nil, err
	}
	return oapi.ListJobs200JSONResponse{Data: mapList(list.Data, jobOf), NextCursor: cursorOf(list.NextCursor)}, nil
}

// locationParam resolves a locationId query parameter: a location key is
// pinned (another location is location_forbidden), an org key's location
// must exist in its organisation (not_found), and required says whether an
// org key must name one.
func (h *handlers) locationParam(ctx context.Context, p *workshop.Principal, sent string, required bool) (string, error) {
	if p.LocationID != "" {
		return p.ResolveLocation(sent, false)
	}
	if sent == "" {
		if required {
			return "", &workshop.Error{Code: workshop.CodeInvalidParameter, Field: "locationId",
				Detail: "locationId is required with an organisation-scoped key."}
		}
		return "", nil
	}
	_, err := h.store.Location(ctx, p.OrgID, sent)
	return sent, err
}

func (h *handlers) PatchJob(ctx context.Context, req oapi.PatchJobRequestObject) (oapi.PatchJobResponseObject, error) {
	b := req.Body
	version, err := expectedVersion(b.UpdatedAt, req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	patch := store.JobPatch{UpdatedAt: version.at, JobNumber: b.JobNumber, VehiclePlate: optionalNullable(b.VehiclePlate),
		VehicleMake: optionalNullable(b.VehicleMake), VehicleModel: optionalNullable(b.VehicleModel),
		ExpectedArrival: optionalNullable(b.ExpectedArrival), CustomerName: optionalNullable(b.CustomerName),
		CustomerPhone: optionalNullable(b.CustomerPhone), CustomerEmail: optionalNullable(b.CustomerEmail)}
	var v workshop.Validation
	if b.JobNumber != nil {
		_ = v.Check(workshop.CheckJobNumber(*b.JobNumber))
	}
	if b.PromiseTime.IsSpecified() {
		t := offsetOf(b.PromiseTime)
		patch.PromiseTime = &t
	}
	if b.ArrivalTime.IsSpecified() {
		t, err := h.arrivalOf(b.ArrivalTime)
		if err := v.Check(err); err != nil {
			return nil, err
		}
		patch.ArrivalTime = &t
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if b.Priority != nil {
		patch.Priority = (*string)(b.Priority)
	}
	if b.Source != nil {
		patch.Source = (*string)(b.Source)
	}
	j, err := h.store.PatchJob(ctx, visibility(principalOf(ctx)), req.JobId, patch, workshop.MicrosOf(h.now()))
	if err != nil {
		return nil, version.failed(err)
	}
	return appended{status: http.StatusOK, etag: etagOf(j.UpdatedAt), body: jobOf(j), size: jobSize}, nil
}

// valueOf is a nullable field's value, nil when null or not sent.
func valueOf[T any](n nullable.Nullable[T]) *T {
	if p := optionalNullable(n); p != nil {
		return *p
	}
	return nil
}

// optionalNullable maps a nullable field to "unchanged" (nil), "clear"
// (pointer to nil) or "set".
func optionalNullable[T any](n nullable.Nullable[T]) **T {
	if !n.IsSpecified() {
		return nil
	}
	var v *T
	if !n.IsNull() {
		x := n.MustGet()
		v = &x
	}
	return &v
}

// optionalOffset is optionalNullable for a time kept with its offset.
func optionalOffset(n nullable.Nullable[time.Time]) **workshop.OffsetTime {
	if !n.IsSpecified() {
		return nil
	}
	t := offsetOf(n)
	return &t
}

// valueOrNil is a nullable field's value, nil when omitted or null.
func valueOrNil[T any](n nullable.Nullable[T]) *T {
	if !n.IsSpecified() || n.IsNull() {
		return nil
	}
	v := n.MustGet()
	return &v
}

func (h *handlers) CreateStep(ctx context.Context, req oapi.CreateStepRequestObject) (oapi.CreateStepResponseObject, error) {
	b := req.Body
	now := workshop.MicrosOf(h.now())
	st := workshop.Step{ID: workshop.NewID(workshop.PrefixStep), JobID: req.JobId, Label: deref(b.Label), Phase: deref(b.Phase),
		SchedulingMode: "sequential", EstimatedDuration: deref(b.EstimatedDuration), TechIDs: []string{}, Status: workshop.StepPending,
		ServiceCode: valueOrNil(b.ServiceCode), NotBefore: offsetOf(b.NotBefore), CreatedAt: now, UpdatedAt: now}
	if b.SchedulingMode != nil {
		st.SchedulingMode = string(*b.SchedulingMode)
	}
	st, err := h.store.CreateStep(ctx, visibility(principalOf(ctx)), st, storeResponseInTx(ctx, func(st workshop.Step) (int, any) { return http.StatusCreated, stepOf(st) }))
	if err != nil {
		return nil, err
	}
	return appended{status: http.StatusCreated, body: stepOf(st), size: stepSize}, nil
}

func (h *handlers) PatchStep(ctx context.Context, req oapi.PatchStepRequestObject) (oapi.PatchStepResponseObject, error) {
	b := req.Body
	version, err := expectedVersion(b.UpdatedAt, req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	patch := store.StepPatch{UpdatedAt: version.at, Label: b.Label, Phase: b.Phase, EstimatedDuration: b.EstimatedDuration,
		TechIDs: b.TechIds, BayID: optionalNullable(b.BayId), NotBefore: optionalOffset(b.NotBefore),
		SchedulingMode: (*string)(b.SchedulingMode), Status: (*string)(b.Status),
		ActualStart: microsPtr(b.ActualStart), ActualEnd: microsPtr(b.ActualEnd), Skew: h.arrivalSkew}
	st, err := h.store.PatchStep(ctx, visibility(principalOf(ctx)), req.JobId, req.StepId, patch, workshop.MicrosOf(h.now()))
	if err != nil {
		return nil, version.failed(err)
	}
	return appended{status: http.StatusOK, etag: etagOf(st.UpdatedAt), body: stepOf(st), size: stepSize}, nil
}

func (h *handlers) DeliverJob(ctx context.Context, req oapi.DeliverJobRequestObject) (oapi.DeliverJobResponseObject, error) {
	version, opts, err := ifMatchOptions(req.Params.IfMatch, storeResponseInTx(ctx, func(j workshop.Job) (int, any) { return http.StatusOK, jobOf(j) }))
	if err != nil {
		return nil, err
	}
	j, err := h.store.DeliverJob(ctx, visibility(principalOf(ctx)), req.JobId, workshop.MicrosOf(h.now()), opts...)
	if err != nil {
		return nil, version.failed(err)
	}
	return appended{status: http.StatusOK, etag: etagOf(j.UpdatedAt), body: jobOf(j), size: jobSize}, nil
}

func (h *handlers) CancelJob(ctx context.Context, req oapi.CancelJobRequestObject) (oapi.CancelJobResponseObject, error) {
	version, opts, err := ifMatchOptions(req.Params.IfMatch, storeResponseInTx(ctx, func(j workshop.Job) (int, any) { return http.StatusOK, jobOf(j) }))
	if err != nil {
		return nil, err
	}
	j, err := h.store.CancelJob(ctx, visibility(principalOf(ctx)), req.JobId, req.Body.ReasonTags, workshop.MicrosOf(h.now()), opts...)
	if err != nil {
		return nil, version.failed(err)
	}
	return appended{status: http.StatusOK, etag: etagOf(j.UpdatedAt), body: jobOf(j), size: jobSize}, nil
}

func (h *handlers) ListCancelReasonTags(ctx context.Context, req oapi.ListCancelReasonTagsRequestObject) (oapi.ListCancelReasonTagsResponseObject, error) {
	p := principalOf(ctx)
	loc, err := h.locationParam(ctx, p, deref(req.Params.LocationId), true)
	if err != nil {
		return nil, err
	}
	tags, err := h.store.CancelTags(ctx, loc)
	if err != nil {
		return nil, err
	}
	return oapi.ListCancelReasonTags200JSONResponse{Data: mapList(tags, func(t workshop.CancelTag) oapi.CancelTag {
		return oapi.CancelTag{Tag: t.Tag, Label: t.Label}
	})}, nil
}
