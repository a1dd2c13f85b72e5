package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is a token bucket per key: perMinute requests a minute with a
// burst of the same size. It counts per process.
type limiter struct {
	perMinute int
	now       func() time.Time
	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
}

func newLimiter(perMinute int, now func() time.Time) *limiter {
	return &limiter{perMinute: perMinute, now: now, buckets: map[string]*rate.Limiter{}}
}

// allow takes a token for the key and sets the RateLimit headers (and
// Retry-After when it refuses).
func (l *limiter) allow(w http.ResponseWriter, key string) bool {
	if l.perMinute <= 0 {
		return true
	}
	l.mu.Lock()
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.buckets[key] = b
	}
	l.mu.Unlock()
	now := l.now()
	ok := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	perSecond := float64(l.perMinute) / 60
	h := w.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(l.perMinute))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(0, int(math.Floor(tokens)))))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(l.perMinute)-tokens)/perSecond))))
	if !ok {
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil((1-tokens)/perSecond)))))
	}
	return ok
}
