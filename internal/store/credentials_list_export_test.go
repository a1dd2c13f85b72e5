package store

import "context"

// AuthEpoch is the auth epoch as a request would read it (tests of what
// moves it).
func (s *Store) AuthEpoch(ctx context.Context) (int64, error) { return s.authEpoch(ctx) }
