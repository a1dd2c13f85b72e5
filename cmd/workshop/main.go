// Command workshop is the whole service in one binary: the API server, the
// schema migrations and the operator commands. main only wires; run is the
// testable entry point.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	_ "time/tzdata" // location time zones must not depend on the host's zoneinfo

	"github.com/workshop-platform/workshop/internal/buildinfo"
)

// build is what the toolchain recorded of this binary (version, commit).
var build = buildinfo.Read()

func main() {
	setGCPercent(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// gcPercent is the collector's default when GOGC is not set. The service's
// live heap is small (tens of MB: the SQLite page cache is outside the Go
// heap) while every request allocates, so at Go's default of 100 the heap
// target sits near its 4 MB floor and the collector runs hundreds of times
// a second; measured, it took a fifth to a third of the CPU of a read (see
// docs/benchmarks.md). 400 lets the heap grow to five times what is live.
const gcPercent = 400

// setGCPercent applies gcPercent unless the operator chose GOGC (or
// GOMEMLIMIT with GOGC=off), which the runtime has already read. It is set
// in main, not run: it is the process's, and tests call run many times.
func setGCPercent(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}

const usage = `usage: workshop <command> [flags]

commands:
  serve     run the API, the application, the webhook dispatcher and the MCP endpoint (--demo: seed demo data, print keys and users)
  mcp       serve the read-only MCP tools over stdio for a desktop assistant (--token wsm_...)
  migrate   apply the database schema and exit
  backup    copy a SQLite database to a file while it is in use (--to FILE), checked
  restore   put a backup in place of a SQLite database no process has open (--from FILE)
  admin     operator commands (workshop admin help)
  bench     measure the API against a fixed-response control (workshop bench -h)
  simulate  run seeded workshop days through the planner: promises kept per dispatch policy (workshop simulate -h)
  version   print the module version, the commit and the Go version it was built from (also --version)
`

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], getenv, stdout, stderr)
	case "mcp":
		err = mcpCmd(ctx, args[1:], getenv, stdin, stdout, stderr)
	case "migrate":
		err = migrate(ctx, args[1:], getenv, stdout)
	case "backup":
		err = backupCmd(ctx, args[1:], getenv, stdout)
	case "restore":
		err = restoreCmd(ctx, args[1:], getenv, stdout)
	case "admin":
		err = admin(ctx, args[1:], getenv, stdin, stdout)
	case "bench":
		err = benchCmd(ctx, args[1:], getenv, stdout, stderr)
	case "simulate":
		err = simulateCmd(args[1:], stdout)
	case "version", "--version":
		fmt.Fprintf(stdout, "workshop %s commit %s %s\n", build.Version, build.Commit, build.GoVersion)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "workshop: unknown command %q\n%s", args[0], usage)
		return 2
	}
	var help helpError
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help.usage)
		return 0
	}
	if lines, ok := err.(importErrors); ok {
		fmt.Fprint(stderr, lines.Error())
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "workshop %s: %s\n", args[0], strings.TrimSuffix(message(err), "\n"))
		// A mistake in the command line exits 2, as with flag and getopt
		// tools (and git and kubectl); a refused operation exits 1.
		if errors.As(err, new(usageError)) {
			return 2
		}
		return 1
	}
	return 0
}
