package bench

import (
	"io"
	"testing"
	"time"
)

// TestMCPGetJob runs the mcp_get_job figure briefly (a second: a busy
// machine once finished no control request in 300 ms): the tool call answers
// the REST read's JSON (checked before measuring) and both run error-free.
func TestMCPGetJob(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for a second")
	}
	figures, err := Run(t.Context(), Config{Scenarios: []string{"mcp_get_job"}, Rounds: 1, Duration: time.Second,
		Warmup: 200 * time.Millisecond, Connections: 4}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(figures) != 1 || figures[0].Kind != "ratio" || figures[0].Rounds[0].TargetRPS <= 0 || figures[0].Rounds[0].ControlRPS <= 0 {
		t.Errorf("figures %+v, want one ratio with both rates", figures)
	}
}
