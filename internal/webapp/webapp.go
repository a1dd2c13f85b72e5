// Package webapp is the workshop application: the pages staff sign in to,
// served by `workshop serve` beside the API on every path outside /v1,
// /mcp, /healthz, /readyz and /metrics (contract section 7). Pages are
// rendered on the server from embedded templates and work without
// JavaScript; htmx, embedded too, enhances them. It uses the store and
// the operator's operations, never SQL of its own.
package webapp

import (
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/webhooks"
)

// Config is how the application runs.
type Config struct {
	Logger *slog.Logger
	Now    func() time.Time // default time.Now
	// Plans computes the locations' plans (the dispatch view) and the job
	// detail (the job page); nil: one of the application's own. serve
	// shares the API's.
	Plans *planning.Service
	// WebhookGuard checks the URLs of webhooks made in the developer
	// settings as the API checks them (--webhook-allow-insecure); nil:
	// the strict guard.
	WebhookGuard *webhooks.Guard
}

// App is the application's handlers.
type App struct {
	store *store.Store
	op    *operator.Operator
	log   *slog.Logger
	now   func() time.Time
	pages pages
	wall  *template.Template // the wall display, a document of its own
	hub   *hub               // the live board's change watcher (Run)
	live  liveTimes

	plans *planning.Service
	guard *webhooks.Guard
	names timelineCache // the dispatch page's records, by plan version
}

// New makes the application on a store.
func New(st *store.Store, cfg Config) (*App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	wall, err := parseWall()
	if err != nil {
		return nil, err
	}
	if cfg.Plans == nil {
		cfg.Plans = planning.New(st)
	}
	op := operator.New(st)
	op.Now = cfg.Now
	return &App{store: st, op: op, log: cfg.Logger, now: cfg.Now, pages: p, wall: wall, hub: newHub(st, cfg.Logger),
		live: defaultLiveTimes, plans: cfg.Plans, guard: cfg.WebhookGuard}, nil
}

// Handler serves every page, each answer with the security headers of
// contract section 7. Form posts from another origin are refused
// (403, crossOrigin) before any handler runs: a session cookie alone never authorises
// a write a page of this origin did not make.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", a.serve(a.root))
	mux.Handle("GET /login", a.serve(a.loginPage))
	mux.Handle("POST /login", a.serve(a.login))
	mux.Handle("POST /logout", a.serve(a.logout))
	mux.Handle("GET /orgs", a.serve(a.orgsPage))
	mux.Handle("POST /orgs", a.serve(a.chooseOrg))
	mux.Handle("GET /setup/{token}", a.serve(a.setupPage))
	mux.Handle("POST /setup/{token}", a.serve(a.setup))
	mux.Handle("GET /invite/{token}", a.serve(a.invitePage))
	mux.Handle("POST /invite/{token}", a.serve(a.acceptInvite))
	mux.Handle("GET /locations/{locationID}/board", a.member(a.board))
	mux.Handle("GET /locations/{locationID}/board/events", a.member(a.boardEvents))
	mux.Handle("GET /locations/{locationID}/jobs", a.member(a.findJobs))
	mux.Handle("GET /locations/{locationID}/jobs/new", a.member(a.newJobPage))
	mux.Handle("POST /locations/{locationID}/jobs/new", a.member(a.createJob))
	mux.Handle("GET /locations/{locationID}/jobs/new/quote", a.member(a.newJobQuote))
	a.jobRoutes(mux)
	mux.Handle("GET /my/work", a.member(a.myWork))
	mux.Handle("GET /my/work/events", a.member(a.myWorkEvents))
	a.resourceRoutes(mux)
	a.attendanceRoutes(mux)
	a.settingsRoutes(mux)
	a.dayCloseRoutes(mux)
	a.developerRoutes(mux)
	a.organisationRoutes(mux)
	a.dispatchRoutes(mux)
	mux.HandleFunc("GET /static/{name}", serveAsset)
	mux.Handle("/", a.serve(func(http.ResponseWriter, *http.Request) error { return errNoSuchPage }))

	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.answerError(w, r, messageError(http.StatusForbidden, nil, "Refused",
			"This form was sent from another site. Open the page here and send it again."))
	})
	return withSecurityHeaders(sameOriginOnly(refuse, a.withSession(mux)))
}
