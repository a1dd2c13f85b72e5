package webapp

import (
	"slices"
	"strings"
	"testing"
)

// ReadEvents reads what sendBoard and the end event write: multi-line
// data joined, heartbeats skipped.
func TestReadEvents(t *testing.T) {
	t.Parallel()
	in := ": heartbeat\n\nevent: board\ndata: <ul>\ndata: <li>RO-1</li>\n\nevent: end\ndata: session ended\n\n"
	var got []string
	if err := ReadEvents(strings.NewReader(in), func(name, data string) { got = append(got, name+"="+data) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"board=<ul>\n<li>RO-1</li>", "end=session ended"}; !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}
