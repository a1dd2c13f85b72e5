package webapp

import (
	"bufio"
	"io"
	"strings"
)

// ReadEvents reads a board stream as its clients do (a browser's
// EventSource, the tests, the bench) and calls fn with each event's name
// and its data lines joined, until r ends; comments (heartbeats) are
// skipped. It returns the reader's error, nil at its end.
func ReadEvents(r io.Reader, fn func(name, data string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 8<<20) // a board of many jobs is one long line
	name, data := "", []string{}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if name != "" {
				fn(name, strings.Join(data, "\n"))
			}
			name, data = "", data[:0]
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return sc.Err()
}
