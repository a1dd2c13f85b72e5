package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// createdAddress are the operations that create a record (201), and where
// the new record is read: under the request's path by its id, at the
// request's path itself (a PUT), or nowhere of its own (nil: an attendance
// is read in the attendance list, an absence or a maintenance window in
// theirs).
var createdAddress = map[string]func(path, id string) string{
	"createJob": underPath, "createStep": underPath, "createWebhook": underPath, "createIntegration": underPath,
	"putCatalogItem": atPath, "clockIn": nil, "createAbsence": nil, "createMaintenanceWindow": nil,
}

func underPath(path, id string) string { return path + "/" + id }
func atPath(path, _ string) string     { return path }

// record is the id and version of the record an answer carries.
type record struct {
	ID        string          `json:"id"`
	UpdatedAt workshop.Micros `json:"updatedAt"`
}

// recordOf is the record of an answer's body: a job's or a step's; nil
// for any other body.
func recordOf(body any) *record {
	switch v := body.(type) {
	case oapi.Job:
		return &record{ID: v.Id, UpdatedAt: v.UpdatedAt}
	case oapi.Step:
		return &record{ID: v.Id, UpdatedAt: v.UpdatedAt}
	}
	return nil
}

// setRecordHeaders gives a 201 its ETag (the record's version, as every
// read's) and its Location, and a replayed answer the ETag its operation's
// answer carries (deliver, cancel: the document's ETag header), all of the
// record the body carries: a fresh answer and a replayed one (whose
// headers are not stored) get the same. known is the record when the
// answer said it (bufferedWriter.record); else it is read from the body.
func setRecordHeaders(h http.Header, op *operation, path string, status int, body []byte, known *record) {
	address, creates := createdAddress[op.id]
	created := status == http.StatusCreated && creates
	if !created && !documentsETag(op, status) {
		return
	}
	rec := known
	if rec == nil {
		rec = &record{}
		if json.Unmarshal(body, rec) != nil {
			return
		}
	}
	if rec.UpdatedAt != 0 {
		h.Set("ETag", *etagOf(rec.UpdatedAt))
	}
	if created && address != nil && rec.ID != "" {
		h.Set("Location", address(path, rec.ID))
	}
}

// documentsETag tells whether the document gives the operation's answer
// of status an ETag header.
func documentsETag(op *operation, status int) bool {
	r := op.route.Operation.Responses.Status(status)
	return r != nil && r.Value != nil && r.Value.Headers["ETag"] != nil
}
