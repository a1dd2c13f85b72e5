package store

import "database/sql"

// PoolStats are the statistics of the store's connection pools by name, for
// the operator's metrics: "writer" and "reader" on SQLite (one writer
// connection, a pool of readers), "pool" on PostgreSQL (one pool for both).
func (s *Store) PoolStats() map[string]sql.DBStats {
	if s.reader == s.writer {
		return map[string]sql.DBStats{"pool": s.writer.Stats()}
	}
	return map[string]sql.DBStats{"writer": s.writer.Stats(), "reader": s.reader.Stats()}
}
