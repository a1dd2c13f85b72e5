package bench

import (
	"io"
	"testing"
	"time"
)

// The application's scenarios run briefly: the pages answer (checked
// before measuring) and the live boards receive every job, error-free.
func TestAppScenarios(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for seconds")
	}
	figures, err := Run(t.Context(), Config{Scenarios: []string{"app_board", "app_job_page", "board_live_200"}, Rounds: 1,
		Duration: time.Second, Warmup: 100 * time.Millisecond, Connections: 4}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figures {
		if len(f.Rounds) != 1 || f.Rounds[0].P99ms <= 0 || f.Rounds[0].Errors != 0 {
			t.Errorf("%s: %+v, want one round with a p99 and no errors", f.Scenario, f.Rounds)
		}
	}
}
