package workshop

import (
	"math"
	"time"
)

// Promise confidence (contract section 9): a quote made with learned
// durations places every step at its median (p50) and adds a margin for
// the spread of the work the new job waits for and of its own, rather
// than padding every step at its 80th percentile. The overruns of many
// steps partly cancel, so the spread of their sum grows with the square
// root of their variances' sum, not with their number: a quote stays short
// on a busy day and still keeps the share of promises asked for.

// DefaultPromiseConfidence is a new location's promise confidence.
const DefaultPromiseConfidence = 0.9

// The promise confidence's range: below a coin toss a promise means
// nothing; at certainty every margin is infinite.
const (
	MinPromiseConfidence = 0.5
	MaxPromiseConfidence = 0.99
)

// p80Quantile is the standard normal quantile of 0.8: a duration's spread
// is (p80 - p50) / p80Quantile.
const p80Quantile = 0.8416

// NormalQuantile is the standard normal quantile of p (0 < p < 1): the z
// of a confidence (1.2816 at 0.9).
func NormalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// DurationSpread is the spread (standard deviation) of a service's
// duration from its learned percentiles: (p80 - p50) / 0.8416; 0 without
// both.
func DurationSpread(st DurationStats) time.Duration {
	if st.P50 == nil || st.P80 == nil {
		return 0
	}
	return time.Duration(float64(*st.P80-*st.P50) / p80Quantile * float64(time.Minute))
}

// ConfidenceMargin is the working time a quote adds to its last step's
// end for confidence: z x sqrt(sum of the spreads squared), rounded up to
// whole minutes.
func ConfidenceMargin(confidence float64, spreads []time.Duration) time.Duration {
	var sum float64
	for _, s := range spreads {
		sum += s.Minutes() * s.Minutes()
	}
	if sum == 0 {
		return 0
	}
	return time.Duration(math.Ceil(NormalQuantile(confidence)*math.Sqrt(sum))) * time.Minute
}
