package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// adminCommand is one operator command: its flags, positional arguments
// and the operation it runs. Each prints one JSON object.
type adminCommand struct {
	args     string // positional arguments, for the help text
	required string // the flags the command cannot run without: a usage mistake (exit 2) when missing
	// makesDatabase: the command may run on a SQLite path with no file and
	// make the database there (the first command of a new install); every
	// other command names or reads records, so a missing file is a typo.
	makesDatabase bool
	// define declares the command's flags and returns the operation to run
	// with the positional arguments once they are parsed.
	define func(fs *flag.FlagSet) func(ctx context.Context, op *operator.Operator, args []string) (any, error)
	// defineWithInput is define for the few commands that read the
	// environment or stdin too (passwords, links); a command has one of
	// the two.
	defineWithInput func(fs *flag.FlagSet, in adminInput) func(ctx context.Context, op *operator.Operator, args []string) (any, error)
}

// adminInput is what a command may read besides its flags.
type adminInput struct {
	getenv env
	stdin  io.Reader
}

// adminCommands is every operator command by "group verb" (contract section 1).
var adminCommands = map[string]adminCommand{
	"org create": {required: "name", makesDatabase: true, define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		name, plan := fs.String("name", "", "organisation name"), fs.String("plan", "pro", "free|starter|pro|enterprise")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.CreateOrg(ctx, *name, workshop.Plan(*plan))
		}
	}},
	"org set-plan": {required: "plan", args: "ORG_ID", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		plan := fs.String("plan", "", "free|starter|pro|enterprise")
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.SetPlan(ctx, a[0], workshop.Plan(*plan))
		}
	}},
	"location create": {required: "org name timezone", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		org, name := fs.String("org", "", "organisation id"), fs.String("name", "", "location name")
		tz, currency := fs.String("timezone", "", "IANA time zone"), fs.String("currency", "EUR", "ISO 4217 currency code")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.CreateLocation(ctx, *org, *name, *tz, *currency)
		}
	}},
	"user create": {required: "org email role", defineWithInput: func(fs *flag.FlagSet, in adminInput) func(context.Context, *operator.Operator, []string) (any, error) {
		org, email, role := fs.String("org", "", "organisation id"), fs.String("email", "", "email"), fs.String("role", "", "owner|admin|advisor|technician")
		developer := fs.Bool("developer", false, "grant developer access (keys, MCP tokens)")
		fromStdin := fs.Bool("password-stdin", false, "read the application password from the first line of stdin")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			r := operator.UserRequest{OrgID: *org, Email: *email, Role: workshop.Role(*role), Developer: *developer}
			if *fromStdin {
				var err error
				if r.Password, err = readPassword(in.stdin); err != nil {
					return nil, err
				}
			}
			return op.AddUser(ctx, r)
		}
	}},
	"user set-password": {args: "USER_ID", defineWithInput: func(fs *flag.FlagSet, in adminInput) func(context.Context, *operator.Operator, []string) (any, error) {
		fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of stdin (required)")
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			if !*fromStdin {
				return nil, usageError{errors.New("set-password reads the password from stdin: give --password-stdin")}
			}
			password, err := readPassword(in.stdin)
			if err != nil {
				return nil, err
			}
			return op.SetPassword(ctx, a[0], password)
		}
	}},
	"user invite": {args: "USER_ID", defineWithInput: func(fs *flag.FlagSet, in adminInput) func(context.Context, *operator.Operator, []string) (any, error) {
		base := fs.String("base-url", "http://"+in.getenv.or("WORKSHOP_ADDR", defaultAddr), "where the application is served (default: http:// and the --addr setting, env WORKSHOP_ADDR)")
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.Invite(ctx, a[0], *base)
		}
	}},
	"key create": {required: "user", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		user, loc := fs.String("user", "", "the creating user's id"), fs.String("location", "", "pin the key to a location")
		scopes, expires := fs.String("scopes", "", "comma-separated scopes (default: all the role allows)"), fs.String("expires", "", "expiry, RFC 3339")
		integ := fs.String("integration", "", "attribute the key's writes to an integration")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			req := operator.KeyRequest{UserID: *user, LocationID: *loc, IntegrationID: *integ, Scopes: *scopes}
			if *expires != "" {
				t, err := time.Parse(time.RFC3339, *expires)
				if err != nil {
					return nil, workshop.Invalid("expires", "%q is not an RFC 3339 time.", *expires)
				}
				req.ExpiresAt = &t
			}
			return op.CreateKey(ctx, req)
		}
	}},
	"key revoke": {args: "KEY_ID", define: func(*flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.RevokeKey(ctx, a[0])
		}
	}},
	"mcp-token create": {required: "user", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		user := fs.String("user", "", "the user the token acts as")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.CreateMCPToken(ctx, *user)
		}
	}},
	"technician create": {required: "location name", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc, name := fs.String("location", "", "location id"), fs.String("name", "", "name")
		skills, wip := fs.String("skills", "", "comma-separated skills"), fs.Int("wip-limit", workshop.DefaultWIPLimit, "steps in progress at once")
		user := fs.String("user", "", "the application user (role technician) who works as this technician")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.CreateTechnician(ctx, operator.TechnicianRequest{LocationID: *loc, Name: *name, Skills: list(*skills), WIPLimit: *wip, UserID: *user})
		}
	}},
	"technician delete": {args: "TECH_ID", define: func(*flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.DeleteTechnician(ctx, a[0])
		}
	}},
	"technician set-hours": {required: "working-hours", args: "TECH_ID", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		hours := fs.String("working-hours", "", `weekly hours as JSON, e.g. [{"day":"mon","start":"08:00","end":"14:00"}]; null: the location's time`)
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.SetTechnicianHours(ctx, a[0], *hours)
		}
	}},
	"bay create": {required: "location name", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc, name := fs.String("location", "", "location id"), fs.String("name", "", "name")
		equipment, services := fs.String("equipment", "", "comma-separated equipment"), fs.String("services", "", "comma-separated service codes")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.CreateBay(ctx, *loc, *name, list(*equipment), list(*services))
		}
	}},
	"bay delete": {args: "BAY_ID", define: func(*flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.DeleteBay(ctx, a[0])
		}
	}},
	"cancel-tags set": {required: "location", args: "TAG [TAG...]", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc := fs.String("location", "", "location id")
		return func(ctx context.Context, op *operator.Operator, a []string) (any, error) {
			return op.SetCancelTags(ctx, *loc, a)
		}
	}},
	"day-close start": {required: "location", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc := fs.String("location", "", "location id")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.StartDayClose(ctx, *loc)
		}
	}},
	"day-close finish": {required: "location", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc := fs.String("location", "", "location id")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.FinishDayClose(ctx, *loc)
		}
	}},
	"settings set": {required: "location", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc := fs.String("location", "", "location id")
		hours := fs.String("hours", "", "opening hours, e.g. mon-fri=08:00-17:30,sat=09:00-13:00 (none: closed)")
		breaks := fs.String("breaks", "", "breaks, e.g. mon-fri=12:00-12:30 (none: no breaks)")
		buffer := fs.Int("bay-buffer", -1, "minutes kept free in a bay between two jobs")
		planning := fs.String("planning-durations", "", "the durations the plan uses: estimate, p50 or p80 (learned from history)")
		confidence := fs.Float64("promise-confidence", 0, "the share of quoted promises to keep, 0.5 to 0.99 (quotes with learned durations add its margin)")
		retention := fs.String("customer-data-retention-days", "", "days a closed job keeps its customer's name, phone and email, 30 to 3650 (none: kept)")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			var b *int
			if *buffer >= 0 {
				b = buffer
			}
			keep, err := operator.CustomerDataRetention(*retention)
			if err != nil {
				return nil, err
			}
			return op.SetSettings(ctx, *loc, *hours, *breaks, b, operator.PlanningDurations(*planning), operator.PromiseConfidence(*confidence), keep)
		}
	}},
	"org list": {define: func(*flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) { return op.ListOrgs(ctx) }
	}},
	"location list": {define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		org := fs.String("org", "", "only this organisation's (default: every organisation's)")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.ListLocations(ctx, *org)
		}
	}},
	"user list": {define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		org := fs.String("org", "", "only this organisation's (default: every organisation's)")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.ListUsers(ctx, *org)
		}
	}},
	"key list":       credentialList(workshop.KindAPIKey),
	"mcp-token list": credentialList(workshop.KindMCPToken),
	"technician list": {required: "location", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc := fs.String("location", "", "location id")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.ListTechnicians(ctx, *loc)
		}
	}},
	"bay list": {required: "location", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		loc := fs.String("location", "", "location id")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.ListBays(ctx, *loc)
		}
	}},
	"import": {required: "org file", defineWithInput: func(fs *flag.FlagSet, in adminInput) func(context.Context, *operator.Operator, []string) (any, error) {
		org, file := fs.String("org", "", "organisation id"), fs.String("file", "", "the group's JSON document (-: stdin)")
		dry := fs.Bool("dry-run", false, "write nothing; print what would change")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			if *file == "-" {
				return op.Import(ctx, *org, in.stdin, *dry)
			}
			f, err := os.Open(*file)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return op.Import(ctx, *org, f, *dry)
		}
	}},
	"export": {required: "org", define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		org := fs.String("org", "", "organisation id")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) { return op.Export(ctx, *org) }
	}},
	"demo": {makesDatabase: true, define: func(*flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) { return op.Demo(ctx) }
	}},
}

// credentialList lists keys or MCP tokens, revoked ones included.
func credentialList(kind workshop.CredentialKind) adminCommand {
	return adminCommand{define: func(fs *flag.FlagSet) func(context.Context, *operator.Operator, []string) (any, error) {
		org := fs.String("org", "", "only this organisation's (default: every organisation's)")
		user := fs.String("user", "", "only this user's")
		return func(ctx context.Context, op *operator.Operator, _ []string) (any, error) {
			return op.ListCredentials(ctx, operator.CredentialListRequest{Kind: kind, OrgID: *org, UserID: *user})
		}
	}}
}

// admin runs `workshop admin GROUP VERB ...` and prints its JSON object.
func admin(ctx context.Context, args []string, getenv env, stdin io.Reader, stdout io.Writer) error {
	name, cmd, rest, err := findAdminCommand(args)
	if err != nil {
		return err
	}
	fs := newFlags("admin " + name)
	db := databaseFlag(fs, getenv)
	var runOp func(context.Context, *operator.Operator, []string) (any, error)
	if cmd.defineWithInput != nil {
		runOp = cmd.defineWithInput(fs, adminInput{getenv: getenv, stdin: stdin})
	} else {
		runOp = cmd.define(fs)
	}
	positional, err := parse(fs, rest)
	if err != nil {
		return err
	}
	if want := len(strings.Fields(cmd.args)); (want == 0 && len(positional) > 0) || len(positional) < min(want, 1) {
		return usageError{fmt.Errorf("usage: workshop admin %s [flags] %s", name, cmd.args)}
	}
	if err := requireFlags(fs, cmd.required); err != nil {
		return err
	}
	// An operator command acts on a workshop's data: a mistyped path must
	// not make an empty database (as workshop mcp refuses one too).
	var opts []store.Option
	if !cmd.makesDatabase {
		opts = append(opts, store.ExistingOnly())
	}
	st, err := store.Open(ctx, *db, opts...)
	if errors.Is(err, store.ErrNoDatabase) {
		return fmt.Errorf("%w; workshop admin acts on the database of a workshop: give its --database (workshop migrate or workshop serve makes one)", err)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	out, err := runOp(ctx, operator.New(st), positional)
	var failed *operator.ImportFailed
	if errors.As(err, &failed) {
		// The answer of what was written, and every error on stderr.
		if err := json.NewEncoder(stdout).Encode(out); err != nil {
			return err
		}
		return importErrors(failed.Errors)
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(out)
}

// importErrors are an import's errors, each printed as one JSON object
// {"path","message"} on a line of stderr; the command exits 1.
type importErrors []operator.ImportError

func (e importErrors) Error() string {
	var b strings.Builder
	for _, ie := range e {
		line, _ := json.Marshal(ie)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// requireFlags is a usage mistake naming the required flags that were not
// given (or given empty).
func requireFlags(fs *flag.FlagSet, required string) error {
	var missing []string
	for _, name := range strings.Fields(required) {
		if fs.Lookup(name).Value.String() == "" {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return usageError{fmt.Errorf("missing required flag(s) %s (workshop admin %s -h lists the flags)", strings.Join(missing, ", "), strings.TrimPrefix(fs.Name(), "admin "))}
}

func findAdminCommand(args []string) (string, adminCommand, []string, error) {
	for n := 2; n >= 1; n-- {
		if len(args) >= n {
			name := strings.Join(args[:n], " ")
			if cmd, ok := adminCommands[name]; ok {
				return name, cmd, args[n:], nil
			}
		}
	}
	switch {
	case len(args) == 0:
		return "", adminCommand{}, nil, usageError{errors.New("give a command\n" + adminUsage())}
	case len(args) == 1 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help"):
		return "", adminCommand{}, nil, helpError{adminUsage()}
	}
	words := args[:min(len(args), 2)]
	if i := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "-") }); i >= 0 {
		words = words[:i] // the command's words, not its flags
	}
	return "", adminCommand{}, nil, usageError{fmt.Errorf("unknown admin command %q\n%s", strings.Join(words, " "), adminUsage())}
}

// adminUsage lists every operator command with its arguments.
func adminUsage() string {
	names := make([]string, 0, len(adminCommands))
	for n, c := range adminCommands {
		names = append(names, strings.TrimSpace("workshop admin "+n+" [flags] "+c.args))
	}
	sort.Strings(names)
	return "usage: workshop admin <command> [flags]\n\ncommands:\n  " + strings.Join(names, "\n  ") +
		"\n\nworkshop admin <command> -h lists a command's flags.\n"
}

// readPassword reads a password as the first line of r, without its line
// end; the rules are checked where it is used.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the password from stdin: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", workshop.Invalid("password", "No password on stdin: write it as the first line.")
	}
	return line, nil
}
