package webapp

import "testing"

// A cell a spreadsheet would read as a formula gets a leading apostrophe;
// any other is written as it is.
func TestCSVSafe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Jonas Weber", "Jonas Weber"},
		{"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{"+1 234", "'+1 234"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tcmd", "'\tcmd"},
		{"\rcmd", "'\rcmd"},
		{"Anne-Marie", "Anne-Marie"},
		{"", ""},
		{"2026-10-25T00:30:00+02:00", "2026-10-25T00:30:00+02:00"},
	} {
		if got := csvSafe(tc.in); got != tc.want {
			t.Errorf("csvSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
