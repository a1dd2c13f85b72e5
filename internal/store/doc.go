// Package store keeps the domain's records in SQLite (embedded, the default)
// or PostgreSQL (several service processes on one database), with one
// implementation for both: the SQL is written once with ? placeholders and
// rewritten for PostgreSQL, and the schema differs only in type names.
//
// Representation, the same on both databases so that behaviour is too:
//   - audit timestamps (created_at, updated_at, ...) are microseconds since
//     the Unix epoch in 64-bit integers;
//   - times a caller sent with an offset are kept as the RFC 3339 text sent,
//     next to an integer UTC copy where queries compare them;
//   - lists of strings are JSON text.
//
// Every operation that writes runs in one transaction, which also holds the
// outbox row of its event and the Idempotency-Key record it completes.
// SQLite runs in WAL mode with one writer connection whose transactions
// begin IMMEDIATE (no lock upgrades, so no SQLITE_BUSY deadlocks) and a
// separate pool of read-only connections; a commit syncs the log to disk
// (synchronous FULL), as PostgreSQL's does.
package store
