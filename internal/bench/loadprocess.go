package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/workshop-platform/workshop/internal/loadgen"
)

// A closed-loop run in the bench's own process shares its Go runtime with
// the server it measures: the load generator's goroutines, allocations and
// garbage collections are charged to the server's figures, and the control
// is flattered or penalised alike only as long as both weigh the same.
// With Config.LoadCommand the closed loops run in a process of their own
// (`workshop bench load`), as wrk would, against the same in-process
// server and control. The requests cannot cross as a Go function, so they
// are written out first: the parent calls the scenario's builder and the
// child replays what it built, in order.

// loadPlan is what the parent hands the load process: the closed loop's
// shape and its requests. Repeat marks a builder that sends the same
// request every time (one is written, and the child sends it forever).
type loadPlan struct {
	Connections int               `json:"connections"`
	Duration    time.Duration     `json:"duration"`
	Warmup      time.Duration     `json:"warmup"`
	Repeat      bool              `json:"repeat"`
	Requests    []recordedRequest `json:"requests"`
}

// recordedRequest is one request as built.
type recordedRequest struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body,omitempty"`
}

// runClosed runs one closed loop, in this process or in the load process.
func (cfg Config) runClosed(ctx context.Context, req loadgen.Request) (loadgen.Result, error) {
	run, err := cfg.closedRun(ctx, req)
	if err != nil {
		return loadgen.Result{}, err
	}
	return run()
}

// closedRun readies one closed loop: for the load process, its requests
// are built and written out before it starts, and the memory they took is
// collected, so that neither is charged to the server being measured. Held
// while the load ran, 100,000 recorded creates were some 100 MB in this
// process, the server's: the heap it grew into, and the recording's own
// CPU, were in every target run's profile, never in the control's (a
// single repeated request).
func (cfg Config) closedRun(ctx context.Context, req loadgen.Request) (func() (loadgen.Result, error), error) {
	if len(cfg.LoadCommand) == 0 {
		return func() (loadgen.Result, error) { return closed(cfg).Run(ctx, req) }, nil
	}
	in, err := cfg.writePlan(req)
	if err != nil {
		return nil, err
	}
	runtime.GC()
	return func() (loadgen.Result, error) {
		defer os.Remove(in.Name())
		defer in.Close()
		cmd := exec.CommandContext(ctx, cfg.LoadCommand[0], cfg.LoadCommand[1:]...)
		cmd.Stdin = in
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return loadgen.Result{}, fmt.Errorf("bench: the load process: %w", err)
		}
		var res loadgen.Result
		if err := json.Unmarshal(out, &res); err != nil {
			return loadgen.Result{}, fmt.Errorf("bench: the load process's answer: %w", err)
		}
		return res, nil
	}, nil
}

// writePlan records the run's requests into a temporary file, open at its
// start, for the load process to read as its stdin.
func (cfg Config) writePlan(req loadgen.Request) (*os.File, error) {
	plan, err := cfg.recordPlan(req)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "workshop-bench-plan-*.json")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	err = json.NewEncoder(w).Encode(plan)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// recordPlan builds the requests a run may send: one when the builder
// repeats itself, else up to LoadPool of them (fewer when the builder runs
// out, as patch_step's fresh steps do).
func (cfg Config) recordPlan(req loadgen.Request) (loadPlan, error) {
	plan := loadPlan{Connections: cfg.Connections, Duration: cfg.Duration, Warmup: cfg.Warmup}
	for i := range int64(max(cfg.LoadPool, 2)) {
		r, err := req(i)
		if err != nil {
			if i == 0 {
				return plan, err
			}
			break
		}
		rec, err := record(r)
		if err != nil {
			return plan, err
		}
		if i == 1 && sameRequest(plan.Requests[0], rec) {
			plan.Repeat = true
			break
		}
		plan.Requests = append(plan.Requests, rec)
	}
	return plan, nil
}

func record(r *http.Request) (recordedRequest, error) {
	rec := recordedRequest{Method: r.Method, URL: r.URL.String(), Header: r.Header}
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return rec, err
		}
		rec.Body = b
	}
	return rec, nil
}

func sameRequest(a, b recordedRequest) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// errPoolRanOut stops a replay that needs more requests than were built.
var errPoolRanOut = errors.New("the recorded requests ran out: rerun with a larger --load-pool")

// ServeLoad is the load process (`workshop bench load`): it reads a plan on
// stdin, runs its closed loop and writes the result as JSON on stdout.
func ServeLoad(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	var plan loadPlan
	if err := json.NewDecoder(stdin).Decode(&plan); err != nil {
		return fmt.Errorf("bench load: the plan: %w", err)
	}
	if len(plan.Requests) == 0 {
		return errors.New("bench load: the plan has no requests")
	}
	replay := func(i int64) (*http.Request, error) {
		if plan.Repeat {
			i = 0
		}
		if i >= int64(len(plan.Requests)) {
			return nil, errPoolRanOut
		}
		rec := plan.Requests[i]
		r, err := http.NewRequest(rec.Method, rec.URL, bytes.NewReader(rec.Body))
		if err != nil {
			return nil, err
		}
		r.Header = rec.Header.Clone()
		return r, nil
	}
	res, err := loadgen.ClosedLoop{Connections: plan.Connections, Duration: plan.Duration, Warmup: plan.Warmup}.Run(ctx, replay)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}
