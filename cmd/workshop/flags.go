package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
)

// env is the environment lookup passed to run (os.Getenv in main).
type env func(string) string

// or is the variable's value, or def when it is unset or empty.
func (e env) or(name, def string) string {
	if v := e(name); v != "" {
		return v
	}
	return def
}

// newFlags makes a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// string declares a string flag whose default is the environment
// variable's value (def when it is unset); -h names the variable.
func (e env) string(fs *flag.FlagSet, name, variable, def, usage string) *string {
	return fs.String(name, e.or(variable, def), usage+" (env "+variable+")")
}

// databaseFlag is --database with its environment fallback; every command
// that opens the database takes it.
func databaseFlag(fs *flag.FlagSet, getenv env) *string {
	return getenv.string(fs, "database", "WORKSHOP_DATABASE_URL", "sqlite://workshop.db", "database URL: sqlite://PATH or postgres://...")
}

// parse parses flags wherever they stand among the positional arguments
// ("key revoke KEY_ID --database URL" and "key revoke --database URL KEY_ID"
// alike) and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, helpOf(fs)
		} else if err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", fs.Name(), err)}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usageError is a mistake in the command line.
type usageError struct{ error }

// helpError is -h or --help: run prints the command's flags to stdout and
// exits 0.
type helpError struct{ usage string }

func (h helpError) Error() string { return h.usage }

// helpOf is the usage of a command's flags, with their defaults.
func helpOf(fs *flag.FlagSet) helpError {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: workshop %s [flags]\n\nflags:\n", fs.Name())
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return helpError{b.String()}
}

// message is what the command prints of an error: a domain error's detail,
// naming the flag it is about.
func message(err error) string {
	var e *workshop.Error
	if errors.As(err, &e) {
		if e.Field != "" {
			return fmt.Sprintf("%s (%s: %s)", e.Detail, e.Field, e.Code)
		}
		return fmt.Sprintf("%s (%s)", e.Detail, e.Code)
	}
	return err.Error()
}

// list splits a comma-separated flag value, dropping empty entries.
func list(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseDelays parses the retry schedule "1m,5m,30m,2h".
func parseDelays(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, p := range list(s) {
		d, err := time.ParseDuration(p)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--webhook-retry-delays: %q is not a duration such as 5m", p)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("--webhook-retry-delays: give at least one delay")
	}
	return out, nil
}

// parseRate parses a rate limit "1200/m", "20/s", "72000/h" or "0" (off)
// into requests per minute.
func parseRate(s string) (int, error) {
	if s == "0" {
		return 0, nil
	}
	n, unit, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 0 {
		return 0, fmt.Errorf("--rate-limit: %q is not a rate such as 1200/m or 0", s)
	}
	switch unit {
	case "s":
		return count * 60, nil
	case "m":
		return count, nil
	case "h":
		return max(1, count/60), nil
	}
	return 0, fmt.Errorf("--rate-limit: unit %q: want s, m or h", unit)
}
