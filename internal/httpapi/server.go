// Package httpapi is the REST API: one handler chain that gives every
// request an id, authenticates it, authorises and validates it against the
// OpenAPI document, runs it under its Idempotency-Key, and answers errors
// as RFC 9457 problems.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/workshop-platform/workshop/api"
	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/planning"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/webhooks"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// Store is what the API needs of the database.
type Store interface {
	Credentials
	Ping(ctx context.Context) error
	IdempotencyRecord(ctx context.Context, orgID, key string) (workshop.IdempotencyRecord, bool, error)
	SaveIdempotentResponse(ctx context.Context, key store.IdempotencyKey, status int, body []byte) error
	PlatformStore
	JobStore
	ResourceStore
	BoardStore
	WebhookStore
	OperationsStore
	PlanStore
	CalendarStore
}

// Config are the API's settings.
type Config struct {
	RateLimitPerMinute int           // 0: no limit
	ArrivalSkew        time.Duration // tolerated clock skew of a sent arrivalTime
	// BodyTimeout is how long a request's whole body may take to arrive,
	// from the request's start (0: no limit).
	BodyTimeout  time.Duration
	Logger       *slog.Logger
	Registry     *prometheus.Registry // the metrics registry served at /metrics
	Now          func() time.Time
	WebhookGuard *webhooks.Guard // checks webhook URLs; nil: the strict guard
	// Plans computes the locations' plans; nil: one of the API's own. The
	// promise watch of the same process shares it, and so its plans.
	Plans *planning.Service
}

// Server is the HTTP API.
type Server struct {
	store        Store
	log          *slog.Logger
	now          func() time.Time
	registry     *prometheus.Registry
	metrics      *metrics
	limiter      *limiter
	ops          map[string]*operation
	openAPIJSON  []byte
	paramOptions *openapi3filter.Options // validate's: the body is checked apart
	mounts       map[string]http.Handler
	arrivalSkew  time.Duration
	bodyTimeout  time.Duration
	webhookGuard *webhooks.Guard
	plans        *planning.Service
	v1Once       sync.Once
	v1           http.Handler // the /v1 routes behind authentication: see routes
}

// New builds the API on a store.
func New(st Store, cfg Config) (*Server, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	docJSON, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Plans == nil {
		cfg.Plans = planning.New(st)
	}
	return &Server{
		store: st, log: cfg.Logger, now: cfg.Now, registry: cfg.Registry, metrics: newMetrics(cfg.Registry),
		limiter: newLimiter(cfg.RateLimitPerMinute, cfg.Now), ops: operationsOf(doc), openAPIJSON: docJSON,
		paramOptions: &openapi3filter.Options{MultiError: true, ExcludeRequestBody: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		mounts:       map[string]http.Handler{}, arrivalSkew: cfg.ArrivalSkew, bodyTimeout: cfg.BodyTimeout, webhookGuard: cfg.WebhookGuard, plans: cfg.Plans,
	}, nil
}

// Mount serves another handler (the MCP endpoint, the application) under
// pattern, inside the request-id, logging and recovery chain.
func (s *Server) Mount(pattern string, h http.Handler) { s.mounts[pattern] = h }

// Handler is the whole HTTP surface: every route is registered here.
func (s *Server) Handler() http.Handler {
	root := http.NewServeMux()
	root.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, map[string]string{"status": "ok"}) })
	root.HandleFunc("GET /readyz", s.ready)
	root.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{Registry: s.registry}))
	root.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.openAPIJSON)
	})
	for pattern, h := range s.mounts {
		root.Handle(pattern, h)
	}

	root.Handle("/v1/", s.authenticate(s.routes()))
	if _, app := s.mounts["/"]; !app { // the application, when mounted, answers every other path
		root.HandleFunc("/", notFound)
	}
	return s.observe(compress(root))
}

// routes is every /v1 operation (the generated router, gate, handlers),
// built once: Handler serves it behind authenticate, and Read runs it
// in-process for a caller already authenticated.
func (s *Server) routes() http.Handler {
	s.v1Once.Do(func() {
		v1 := http.NewServeMux()
		oapi.HandlerWithOptions(
			oapi.NewStrictHandlerWithOptions(&handlers{store: s.store, now: s.now, arrivalSkew: s.arrivalSkew, webhookGuard: s.webhookGuard, plans: s.plans}, nil, oapi.StrictHTTPServerOptions{
				RequestErrorHandlerFunc:  decodeError,
				ResponseErrorHandlerFunc: writeError,
			}),
			oapi.StdHTTPServerOptions{
				BaseRouter:       v1,
				Middlewares:      []oapi.MiddlewareFunc{s.gate},
				ErrorHandlerFunc: s.parameterError,
			})
		v1.HandleFunc("/", methodNotAllowed(v1))
		s.v1 = v1
	})
	return s.v1
}

// gate runs before every operation: authorisation, body checks, validation
// against the OpenAPI document, then the Idempotency-Key.
func (s *Server) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := s.ops[r.Pattern]
		if op == nil {
			writeError(w, r, fmt.Errorf("route %q is not in the OpenAPI document", r.Pattern))
			return
		}
		st := stateOf(r.Context())
		st.operation = op.id
		if err := authorize(st.principal, op.id); err != nil {
			writeError(w, r, err)
			return
		}
		if nulInURL(r) {
			writeError(w, r, workshop.Errorf(workshop.CodeInvalidParameter, "Paths and parameters cannot contain the NUL character."))
			return
		}
		if err := unknownQuery(r, op); err != nil {
			writeError(w, r, err)
			return
		}
		if err := checkIfNoneMatch(r); err != nil {
			writeError(w, r, err)
			return
		}
		body, err := readBody(r, op)
		if err != nil {
			writeError(w, r, err)
			return
		}
		key := r.Header.Get("Idempotency-Key")
		underKey := key != "" && r.Method == http.MethodPost && !writesNothing[op.id]
		members := membersOf(body)
		if op.id == "createJob" && s.existingJob(w, r, members.externalKey) {
			return
		}
		if err := s.validate(r, op, body); err != nil {
			writeError(w, r, err)
			return
		}
		if answersSecret[op.id] {
			w.Header().Set("Cache-Control", "no-store") // no cache, shared or private, keeps a signing secret
		}
		if underKey {
			s.idempotent(w, r, op, key, body, members.locationID, next)
			return
		}
		if _, creates := createdAddress[op.id]; creates {
			bw := &bufferedWriter{header: http.Header{}}
			next.ServeHTTP(bw, r)
			setRecordHeaders(bw.header, op, r.URL.Path, bw.status, bw.body.Bytes(), bw.record)
			bw.flush(w)
			return
		}
		next.ServeHTTP(ifNoneMatch(w, r), r)
	})
}

// answersSecret are the operations whose answer can carry a credential
// (a webhook's signingSecret, on create and on rotation).
var answersSecret = map[string]bool{"createWebhook": true, "patchWebhook": true}

// parameterError answers a parameter the generated router could not read
// (limit=ten): it runs before gate, so the caller is authorised here first,
// then told which parameter is wrong.
func (s *Server) parameterError(w http.ResponseWriter, r *http.Request, err error) {
	if op := s.ops[r.Pattern]; op != nil {
		stateOf(r.Context()).operation = op.id
		if aerr := authorize(principalOf(r.Context()), op.id); aerr != nil {
			writeError(w, r, aerr)
			return
		}
	}
	writeError(w, r, s.parameterProblem(r, err))
}

// parameterProblem says which parameter could not be read and what it
// must be, in words: the generated router's errors quote Go's parsers.
func (s *Server) parameterProblem(r *http.Request, err error) *workshop.Error {
	var format *oapi.InvalidParamFormatError
	var required *oapi.RequiredParamError
	var many *oapi.TooManyValuesForParamError
	switch {
	case errors.As(err, &format):
		must := "is not valid"
		if op := s.ops[r.Pattern]; op != nil {
			for _, p := range op.route.Operation.Parameters {
				if p.Value != nil && p.Value.Name == format.ParamName && p.Value.Schema != nil && p.Value.Schema.Value != nil {
					must = "must be " + expected(p.Value.Schema.Value)
					if s := p.Value.Schema.Value; (s.Min != nil || s.Max != nil) && wholeNumberRe.MatchString(r.URL.Query().Get(format.ParamName)) {
						must = "must be " + rangeOf(s) // a whole number too large to read is out of range
					}
				}
			}
		}
		return &workshop.Error{Code: workshop.CodeInvalidParameter, Field: format.ParamName, Detail: "The parameter " + format.ParamName + " " + must + "."}
	case errors.As(err, &required):
		return &workshop.Error{Code: workshop.CodeInvalidParameter, Field: required.ParamName, Detail: "The parameter " + required.ParamName + " is required."}
	case errors.As(err, &many):
		return &workshop.Error{Code: workshop.CodeInvalidParameter, Field: many.ParamName, Detail: "The parameter " + many.ParamName + " is given more than once."}
	}
	return workshop.Errorf(workshop.CodeInvalidParameter, "A parameter of this request could not be read.")
}

var wholeNumberRe = regexp.MustCompile(`^[-+]?[0-9]+$`)

// decodeError answers a body that passed the document's checks but does
// not decode into the operation's request (rare: the two disagree), naming
// the member when Go's decoder says which.
func decodeError(w http.ResponseWriter, r *http.Request, err error) {
	e := workshop.Errorf(workshop.CodeInvalidJSON, "The body does not fit this operation's request.")
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		e.Field, e.Detail = typ.Field, typ.Field+" has the wrong type for this operation's request."
	}
	writeError(w, r, e)
}

// methodNotAllowed answers a request no operation of mux takes: 405 with
// Allow when the path is an operation's under other methods, else 404.
// The methods are asked of mux itself, so they are the routes' own.
func methodNotAllowed(mux *http.ServeMux) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if _, pattern := mux.Handler(&http.Request{Method: m, URL: r.URL, Host: r.Host}); pattern != "/" {
				allow = append(allow, m)
			}
		}
		if len(allow) == 0 {
			notFound(w, r)
			return
		}
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, r, workshop.Errorf(workshop.CodeMethodNotAllowed, "%s %s is not an operation of this API; the path takes %s.",
			r.Method, r.URL.Path, strings.Join(allow, ", ")))
	}
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, workshop.Errorf(workshop.CodeNotFound, "There is no %s %s in this API.", r.Method, r.URL.Path))
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		noteCause(r, err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "unavailable", "requestId": requestIDOf(r.Context())})
		return
	}
	writeJSON(w, map[string]string{"status": "ready"})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
