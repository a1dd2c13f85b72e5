package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/workshop-platform/workshop/internal/bench"
)

// benchCmd runs `workshop bench`: the figures of the issues, rerunnable.
func benchCmd(ctx context.Context, args []string, getenv env, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "receiver" {
		return benchReceiver(ctx, args[1:], stdout)
	}
	if len(args) > 0 && args[0] == "load" {
		return bench.ServeLoad(ctx, stdin, stdout)
	}
	fs := newFlags("bench")
	db := getenv.string(fs, "database", "WORKSHOP_BENCH_DATABASE_URL", "", "where to make the bench's databases: sqlite://PATH (a new file beside PATH) or postgres://… (a new database on that server); each is removed after, and the one named is never written (default: a temporary directory)")
	scenarios := fs.String("scenario", "me", "comma-separated scenarios: "+fmt.Sprint(bench.ScenarioNames()))
	rounds := fs.Int("rounds", 5, "interleaved rounds of each scenario")
	duration := fs.Duration("duration", 5*time.Second, "measured time per run (promise_watch_scale: the window at rest, measured minute by minute)")
	warmup := fs.Duration("warmup", time.Second, "unmeasured time before each run")
	conns := fs.Int("connections", 64, "connections of the closed-loop runs")
	stepPool := fs.Int("step-pool", 120000, "fresh steps seeded before each round of patch_step (each is started once; a round uses warmup+duration times its rate)")
	loadProcess := fs.Bool("load-process", false, "run the closed-loop load (target and control) in a process of its own, as an outside load generator would")
	loadPool := fs.Int("load-pool", 100000, "with --load-process: requests recorded per run for scenarios that send a different request each time")
	locations := fs.Int("locations", 100, "promise_watch_scale: locations of 5 technicians, 3 bays and 20 open jobs")
	portRange := fs.String("ports", "", "promise_watch_scale: LOW-HIGH, the ports its serve processes and webhook receiver listen on (default: any free port)")
	processes := fs.String("processes", "1,2", "promise_watch_scale: the runs, by number of serve processes")
	opening := fs.Duration("opening", 18*time.Minute, "promise_watch_scale: how long to measure the CPU of every minute once every location opens (and ends its period 3 minutes later); 0 skips it")
	serve := fs.String("serve", "", "promise_watch_scale: the workshop binary to start as serve processes (default: this one; another build's to compare)")
	jsonOut := fs.String("json", "", "also write the figures as JSON to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of each measured target run to FILE.<scenario>.<round> (seeding and the control are left out)")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	exe, err := os.Executable() // started again as the slow webhook receiver
	if err != nil {
		return err
	}
	if *serve == "" {
		*serve = exe
	}
	pr, err := bench.ParsePortRange(*portRange)
	if err != nil {
		return usageError{err}
	}
	var procs []int
	for _, p := range list(*processes) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 2 {
			return usageError{fmt.Errorf("processes %q: want 1, 2 or 1,2", *processes)}
		}
		procs = append(procs, n)
	}
	cfg := bench.Config{DatabaseURL: *db, Ports: pr, Processes: procs, Opening: *opening, Scenarios: list(*scenarios), Rounds: *rounds,
		Duration: *duration, Warmup: *warmup, Connections: *conns, StepPool: *stepPool, ReceiverCommand: []string{exe, "bench", "receiver"},
		Locations: *locations, ServeCommand: []string{*serve}, LoadPool: *loadPool}
	if *loadProcess {
		cfg.LoadCommand = []string{exe, "bench", "load"}
	}
	if *cpuProfile != "" {
		cfg.Profile = cpuProfiler(*cpuProfile, stderr)
	}
	figures, err := bench.Run(ctx, cfg, stdout)
	if err != nil {
		return err
	}
	if *jsonOut == "" {
		return nil
	}
	f, err := os.Create(*jsonOut)
	if err != nil {
		return err
	}
	defer f.Close()
	return bench.WriteJSON(f, figures)
}

// cpuProfiler profiles each measured run into a file of its own; a
// profile that cannot be written is reported and the run goes on.
func cpuProfiler(path string, stderr io.Writer) func(run string) func() {
	return func(run string) func() {
		f, err := os.Create(path + "." + run)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "cpuprofile %s: %v\n", run, err)
			if f != nil {
				f.Close()
			}
			return func() {}
		}
		return func() {
			pprof.StopCPUProfile()
			f.Close()
		}
	}
}

// benchReceiver runs `workshop bench receiver --delay D`: the slow webhook
// receiver the bench starts as a process of its own.
func benchReceiver(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("bench receiver")
	delay := fs.Duration("delay", 0, "how long each answer takes")
	if rest, err := parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("unexpected argument %q", rest[0])
	}
	return bench.ServeReceiver(ctx, *delay, stdin, stdout)
}
