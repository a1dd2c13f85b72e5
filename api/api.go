// Package api holds the OpenAPI document of the HTTP API, the source of
// truth from which the server's code (internal/httpapi/oapi) and the
// importable Go client (package client at the module root) are generated.
package api

import _ "embed"

// OpenAPI is api/openapi.yaml as written.
//
//go:embed openapi.yaml
var OpenAPI []byte

//go:generate go tool oapi-codegen -config oapi-codegen.yaml openapi.yaml
//go:generate go tool oapi-codegen -config oapi-codegen-client.yaml openapi.yaml
