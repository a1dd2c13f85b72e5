package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/webapp"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	scenarios["app_board"] = scenario{
		description: "the application's board page (GET /locations/{id}/board, signed in) of a location with 2,000 open jobs " +
			"and 40 bays (20 occupied), open loop at 100 req/s",
		prepare: func(ctx context.Context, e *env) (loadgen.Request, error) {
			if _, err := e.board(ctx, 2000); err != nil {
				return nil, err
			}
			return e.page(ctx, "/locations/"+e.locID+"/board")
		},
		rate: 100,
	}
	scenarios["app_job_page"] = scenario{
		description: "the application's job page (GET /jobs/{id}, signed in: the job, its steps, plan, promise and history) " +
			"of a job with 5 steps, in a location with 2,000 open jobs, open loop at 100 req/s",
		prepare: func(ctx context.Context, e *env) (loadgen.Request, error) {
			if _, err := e.board(ctx, 2000); err != nil {
				return nil, err
			}
			jobs, err := e.seedJobs(ctx, 1, 5)
			if err != nil {
				return nil, err
			}
			return e.page(ctx, "/jobs/"+jobs[0].job.ID)
		},
		rate: 100,
	}
	scenarios["board_live_200"] = scenario{
		description: "200 live boards connected (server-sent events, signed in) while jobs are created through the API, " +
			"one every 250 ms: time from sending the create to the board with the new job on each stream, p50 and p99 " +
			"over every stream and create",
		custom: func(ctx context.Context, e *env, cfg Config) (Figure, error) { return e.liveBoards(ctx, cfg, 200) },
	}
}

// signIn makes an owner with a password and signs in to the application:
// the session cookie.
func (e *env) signIn(ctx context.Context) (*http.Cookie, error) {
	email := fmt.Sprintf("app-%d@bench.example", time.Now().UnixNano())
	const password = "bench password 1"
	if _, err := e.op.AddUser(ctx, operator.UserRequest{OrgID: e.orgID, Email: email, Role: workshop.RoleOwner, Password: password}); err != nil {
		return nil, err
	}
	c := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.PostForm(e.base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	for _, ck := range res.Cookies() {
		if ck.Value != "" {
			return ck, nil
		}
	}
	return nil, fmt.Errorf("sign-in answered %d without a session cookie", res.StatusCode)
}

// page builds a GET of an application page with a fresh session, after
// checking that the page answers 200.
func (e *env) page(ctx context.Context, path string) (loadgen.Request, error) {
	cookie, err := e.signIn(ctx)
	if err != nil {
		return nil, err
	}
	req := func(int64) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodGet, e.base+path, nil)
		if err == nil {
			r.AddCookie(cookie)
		}
		return r, err
	}
	r, _ := req(0)
	res, err := e.client.Do(r)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d, want 200", path, res.StatusCode)
	}
	return req, nil
}

// liveBoards connects n board streams, then creates jobs through the API
// and times each job's arrival on every stream.
func (e *env) liveBoards(ctx context.Context, cfg Config, n int) (Figure, error) {
	cookie, err := e.signIn(ctx)
	if err != nil {
		return Figure{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: n + 16, MaxIdleConnsPerHost: n + 16}}
	streams := make([]*boardStream, n)
	for i := range streams {
		if streams[i], err = openBoardStream(ctx, client, e.base+"/locations/"+e.locID+"/board/events", cookie); err != nil {
			return Figure{}, fmt.Errorf("stream %d: %w", i+1, err)
		}
	}
	f := Figure{Kind: "latency"}
	median, lo, hi, err := loadgen.Rounds(cfg.Rounds, func(int) (float64, error) {
		var latencies []time.Duration
		var errs int64
		changes := max(4, int(cfg.Duration/(250*time.Millisecond)))
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for range changes {
			<-tick.C
			number, at, err := e.createForBoards(ctx)
			if err != nil {
				return 0, err
			}
			for _, s := range streams {
				if d, ok := s.waitFor(number, at, 5*time.Second); ok {
					latencies = append(latencies, d)
				} else {
					errs++
				}
			}
		}
		slices.Sort(latencies)
		p50, p99 := quantile(latencies, 0.50), quantile(latencies, 0.99)
		f.Rounds = append(f.Rounds, Round{TargetRPS: float64(len(latencies)) / cfg.Duration.Seconds(), P50ms: ms(p50), P99ms: ms(p99), Errors: errs})
		return ms(p99), nil
	})
	f.Median, f.Min, f.Max = median, lo, hi
	return f, err
}

// createForBoards creates a job through the API: its number and when the
// request was sent (a board may show the job before the API's answer has
// reached the client, so the time runs from the request: an upper bound).
func (e *env) createForBoards(ctx context.Context) (string, time.Time, error) {
	req, err := e.createJob()(0)
	if err != nil {
		return "", time.Time{}, err
	}
	at := time.Now()
	res, err := e.client.Do(req.WithContext(ctx))
	if err != nil {
		return "", time.Time{}, err
	}
	defer res.Body.Close()
	var j struct{ JobNumber string }
	if err := json.NewDecoder(res.Body).Decode(&j); err != nil || res.StatusCode != http.StatusCreated {
		return "", at, fmt.Errorf("create a job: %d %v", res.StatusCode, err)
	}
	return j.JobNumber, at, nil
}

// boardStream is one open board's event stream: the boards it received
// and when.
type boardStream struct {
	mu     sync.Mutex
	cond   *sync.Cond
	boards []string
	at     []time.Time
	closed bool
}

func openBoardStream(ctx context.Context, client *http.Client, url string, cookie *http.Cookie) (*boardStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.AddCookie(cookie)
	req.Header.Set("Accept", "text/event-stream")
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("GET %s: %d", url, res.StatusCode)
	}
	s := &boardStream{}
	s.cond = sync.NewCond(&s.mu)
	go func() {
		defer res.Body.Close()
		_ = webapp.ReadEvents(res.Body, func(name, data string) {
			if name == "board" {
				s.mu.Lock()
				s.boards, s.at = append(s.boards, data), append(s.at, time.Now())
				s.cond.Broadcast()
				s.mu.Unlock()
			}
		})
		s.mu.Lock()
		s.closed = true
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	if _, ok := s.waitFor("", time.Time{}, 10*time.Second); !ok {
		return nil, errors.New("no board within 10 s of connecting")
	}
	return s, nil
}

// waitFor waits (within a limit) for a board that shows text, received
// after since: how long after since it came.
func (s *boardStream) waitFor(text string, since time.Time, within time.Duration) (time.Duration, bool) {
	expired := false // guarded by s.mu
	timer := time.AfterFunc(within, func() {
		s.mu.Lock()
		expired = true
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := 0
	for {
		for ; seen < len(s.boards); seen++ {
			if strings.Contains(s.boards[seen], text) && !s.at[seen].Before(since) {
				return s.at[seen].Sub(since), true
			}
		}
		if s.closed || expired {
			return 0, false
		}
		s.cond.Wait()
	}
}

// quantile is the q-quantile of sorted durations (0 when there are none).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
