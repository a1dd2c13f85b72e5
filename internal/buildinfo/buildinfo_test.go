package buildinfo

import (
	"runtime"
	"testing"
)

// A test binary has no VCS settings and the version (devel): every field
// is still filled.
func TestRead(t *testing.T) {
	t.Parallel()
	got := Read()
	if got.Version == "" || got.Commit == "" {
		t.Errorf("Read() = %+v, want a version and a commit (or their placeholders)", got)
	}
	if got.GoVersion != runtime.Version() {
		t.Errorf("GoVersion: got %q, want %q", got.GoVersion, runtime.Version())
	}
}
