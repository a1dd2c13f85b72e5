package operator

import (
	"context"
	"errors"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// UserRequest is what a user is made with; Password is optional (without
// one, the user signs in after an invite).
type UserRequest struct {
	OrgID, Email string
	Role         workshop.Role
	Developer    bool
	Password     string
}

// AddUser makes a user with a role and, when given, a password: both in
// one write, so a password the rules refuse makes no user either.
func (o *Operator) AddUser(ctx context.Context, r UserRequest) (workshop.User, error) {
	u, err := newUser(r, o.stamp())
	if err != nil {
		return u, err
	}
	if _, err := o.Store.Org(ctx, r.OrgID); err != nil {
		return workshop.User{}, err
	}
	return o.Store.CreateUser(ctx, u)
}

// newUser validates a user and hashes its password.
func newUser(r UserRequest, now workshop.Micros) (workshop.User, error) {
	var v workshop.Validation
	if a, err := mail.ParseAddress(r.Email); err != nil || a.Address != r.Email {
		v.Add("email", "%q is not an email address.", r.Email)
	}
	if !r.Role.Valid() {
		v.Add("role", "Unknown role %q: want one of %v.", r.Role, workshop.Roles)
	}
	if r.Password != "" {
		addField(&v, workshop.CheckPasswordRule("password", r.Password))
	}
	if err := v.Err(); err != nil {
		return workshop.User{}, err
	}
	u := workshop.User{ID: workshop.NewID(workshop.PrefixUser), OrgID: r.OrgID, Email: r.Email, Role: r.Role,
		DeveloperAccess: r.Developer, CreatedAt: now, UpdatedAt: now}
	if r.Password != "" {
		u.PasswordHash = workshop.HashPassword(r.Password)
	}
	return u, nil
}

// LocationFields are a new location's settable fields.
type LocationFields struct{ Name, Timezone, Currency string }

var currencyRe = regexp.MustCompile(`^[A-Z]{3}$`)

// newLocation validates a location (nameField names the name's field:
// "name" for the command, the form's own elsewhere); the currency defaults
// to EUR.
func newLocation(orgID string, f LocationFields, nameField string, now workshop.Micros) (workshop.Location, error) {
	if f.Currency == "" {
		f.Currency = "EUR"
	}
	var v workshop.Validation
	addField(&v, workshop.CheckName(nameField, f.Name))
	if _, err := time.LoadLocation(f.Timezone); err != nil || f.Timezone == "" || f.Timezone == "Local" {
		v.Add("timezone", "%q is not an IANA time zone name such as Europe/Berlin.", f.Timezone)
	}
	if !currencyRe.MatchString(f.Currency) {
		v.Add("currency", "%q is not a three-letter currency code such as EUR.", f.Currency)
	}
	if err := v.Err(); err != nil {
		return workshop.Location{}, err
	}
	return workshop.Location{ID: workshop.NewID(workshop.PrefixLocation), OrgID: orgID, Name: f.Name, Timezone: f.Timezone,
		CurrencyCode: f.Currency, CreatedAt: now, UpdatedAt: now}, nil
}

// addField adds the fields of a validation error to v.
func addField(v *workshop.Validation, err error) {
	var e *workshop.Error
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			v.AddCode(f.Field, f.Code, "%s", f.Message)
		}
	}
}

// PasswordOut is what set-password prints.
type PasswordOut struct {
	ID          string `json:"id"`
	PasswordSet bool   `json:"passwordSet"`
}

// SetPassword gives a user a new password; the user's sessions signed in
// with the old one end.
func (o *Operator) SetPassword(ctx context.Context, userID, password string) (PasswordOut, error) {
	if err := workshop.CheckPasswordRule("password", password); err != nil {
		return PasswordOut{}, err
	}
	u, err := o.Store.SetPassword(ctx, userID, workshop.HashPassword(password))
	return PasswordOut{ID: u.ID, PasswordSet: err == nil}, err
}

// InviteOut is a made invite: the link is shown this once.
type InviteOut struct {
	ID        string `json:"id"`
	InviteURL string `json:"inviteUrl"`
}

// Invite makes a one-time link, valid for InviteValidity, where the user
// chooses a password; baseURL is where the application is served.
func (o *Operator) Invite(ctx context.Context, userID, baseURL string) (InviteOut, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" || base.Fragment != "" {
		return InviteOut{}, workshop.Invalid("base-url", "%q is not an http:// or https:// URL such as https://workshop.example.com.", baseURL)
	}
	token := workshop.NewSecret("")
	expires := workshop.MicrosOf(o.Now().Add(workshop.InviteValidity))
	if err := o.Store.CreateInvite(ctx, userID, workshop.HashSecret(token), expires); err != nil {
		return InviteOut{}, err
	}
	return InviteOut{ID: userID, InviteURL: strings.TrimSuffix(base.String(), "/") + "/invite/" + token}, nil
}

// SetupToken mints the one-time first-run setup token when the database
// has no organisation; needed is false (and no token made) when it has one.
func (o *Operator) SetupToken(ctx context.Context) (token string, needed bool, err error) {
	token = workshop.NewSecret("")
	needed, err = o.Store.CreateSetupToken(ctx, workshop.HashSecret(token), workshop.MicrosOf(o.Now().Add(workshop.InviteValidity)))
	if !needed || err != nil {
		return "", false, err
	}
	return token, true, nil
}

// SetupRequest is the first-run setup form: the first organisation, its
// first location and its owner.
type SetupRequest struct {
	OrgName  string
	Location LocationFields
	Email    string
	Password string
}

// Setup makes the first organisation, location and owner with a setup
// token, all or nothing. Every invalid field is reported at once, named
// orgName, locationName, timezone, currency, email and password.
func (o *Operator) Setup(ctx context.Context, token string, r SetupRequest) (workshop.User, error) {
	now := o.stamp()
	org := workshop.Org{ID: workshop.NewID(workshop.PrefixOrg), Name: r.OrgName, PlanTier: workshop.PlanPro, CreatedAt: now, UpdatedAt: now}
	var v workshop.Validation
	addField(&v, workshop.CheckName("orgName", r.OrgName))
	loc, err := newLocation(org.ID, r.Location, "locationName", now)
	addField(&v, err)
	if r.Password == "" {
		v.Add("password", "Choose a password.")
	}
	owner, err := newUser(UserRequest{OrgID: org.ID, Email: r.Email, Role: workshop.RoleOwner, Password: r.Password}, now)
	addField(&v, err)
	if err := v.Err(); err != nil {
		return workshop.User{}, err
	}
	err = o.Store.CompleteSetup(ctx, workshop.HashSecret(token), store.Setup{Org: org, Location: loc, Settings: workshop.DefaultSettings(), Owner: owner})
	return owner, err
}
