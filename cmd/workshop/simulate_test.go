package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSimulate: --json prints exactly the documented shape, one row per
// policy and durations asked for; mistakes in the flags exit 2.
func TestSimulate(t *testing.T) {
	t.Parallel()
	r := runCmd(t, nil, "simulate", "--seed", "3", "--days", "1", "--jobs", "8", "--policy", "fcfs,plan", "--durations", "p80",
		"--hire", "diagnostics,electrics", "--add-bay", "any", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	var out map[string][]map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != 1 || len(out["policies"]) != 2 {
		t.Fatalf("got %s (%v), want {\"policies\":[two rows]}", r.stdout, err)
	}
	want := []string{"churn", "durations", "meanLeadMinutes", "meanQuoteMinutes", "policy", "promisesKept", "utilisation", "weightedLateMinutes"}
	for i, row := range out["policies"] {
		var keys []string
		for k := range row {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want) {
			t.Errorf("row %d keys %v, want %v", i, keys, want)
		}
		if row["durations"] != "p80" {
			t.Errorf("row %d: durations %v, want p80", i, row["durations"])
		}
	}
	for _, args := range [][]string{{"--policy", "random"}, {"--durations", "p99"}, {"--hire", "welding"}, {"--days", "0"}, {"--services", "11"}} {
		r := runCmd(t, nil, append([]string{"simulate"}, args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "workshop simulate:") {
			t.Errorf("simulate %v: exit %d, stderr %q; want 2 and the mistake", args, r.code, r.stderr)
		}
	}
}
