// Package api holds the OpenAPI document of the HTTP API, the source of
// truth from which internal/httpapi/oapi is generated.
package api

import _ "embed"

// OpenAPI is api/openapi.yaml as written.
//
//go:embed openapi.yaml
var OpenAPI []byte

//go:generate go tool oapi-codegen -config oapi-codegen.yaml openapi.yaml
