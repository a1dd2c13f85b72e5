package workshop

import (
	"strconv"
	"strings"
)

// The words of refusals: they are read by staff in the application and by
// integrators in the API's problem detail alike (contract section 7: a
// refusal names people, bays and jobs as staff know them), so statuses
// read as words and counts agree with their nouns.

// statusWords is a job or step status as a sentence says it
// ("in progress").
func statusWords(status string) string { return strings.ReplaceAll(status, "_", " ") }

// count is n of noun, in the singular for one ("1 step", "2 steps").
func count(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return strconv.Itoa(n) + " " + noun
}
