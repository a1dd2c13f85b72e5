// Package workshop is the domain of the service: the records a vehicle
// workshop runs on (organisations, locations, people, keys, jobs, ...), the
// rules that govern them and the errors they produce. It imports no adapter:
// the store, the HTTP API, the webhooks and the MCP server all depend on it,
// never the other way round.
package workshop
