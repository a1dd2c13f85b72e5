package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// createdAddress are the operations that create a record (201), and where
// the new record is read: under the request's path by its id, at the
// request's path itself (a PUT), or nowhere of its own (nil: an attendance
// is read in the attendance list).
var createdAddress = map[string]func(path, id string) string{
	"createJob": underPath, "createStep": underPath, "createWebhook": underPath, "createIntegration": underPath,
	"putCatalogItem": atPath, "clockIn": nil,
}

func underPath(path, id string) string { return path + "/" + id }
func atPath(path, _ string) string     { return path }

// setCreatedHeaders gives a 201 its ETag (the record's version, as every
// read's) and its Location, both read from the body: a fresh answer and a
// replayed one (whose headers are not stored) get the same.
func setCreatedHeaders(h http.Header, op *operation, path string, status int, body []byte) {
	address, creates := createdAddress[op.id]
	if status != http.StatusCreated || !creates {
		return
	}
	var rec struct {
		ID        string    `json:"id"`
		UpdatedAt time.Time `json:"updatedAt"`
	}
	if json.Unmarshal(body, &rec) != nil {
		return
	}
	if !rec.UpdatedAt.IsZero() {
		h.Set("ETag", *etagOf(workshop.MicrosOf(rec.UpdatedAt)))
	}
	if address != nil && rec.ID != "" {
		h.Set("Location", address(path, rec.ID))
	}
}
