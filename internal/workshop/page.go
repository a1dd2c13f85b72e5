package workshop

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Page limits of every list (contract section 2).
const (
	DefaultPageLimit = 50
	MaxPageLimit     = 200
)

// PageRequest asks for one page of a list ordered by (createdAt, id).
type PageRequest struct {
	Limit int
	After *Cursor // nil: the first page
}

// Cursor is the position after the last row of a page: lists are keyset
// paginated on (createdAt, id), so a walk page by page returns every row once
// even while rows are added.
type Cursor struct {
	CreatedAt Micros
	ID        string
}

// Encode is the opaque form handed to callers.
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(int64(c.CreatedAt), 10) + "." + c.ID))
}

// ParsePageRequest validates limit and cursor query parameters.
func ParsePageRequest(limit *int, cursor string) (PageRequest, error) {
	p := PageRequest{Limit: DefaultPageLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxPageLimit {
			return p, &Error{Code: CodeInvalidParameter, Field: "limit", Detail: "limit must be between 1 and 200."}
		}
		p.Limit = *limit
	}
	if cursor != "" {
		c, ok := decodeCursor(cursor)
		if !ok {
			return p, &Error{Code: CodeInvalidParameter, Field: "cursor", Detail: "cursor is not a value this API returned as nextCursor."}
		}
		p.After = &c
	}
	return p, nil
}

func decodeCursor(s string) (Cursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, false
	}
	ts, id, ok := strings.Cut(string(raw), ".")
	if !ok || id == "" {
		return Cursor{}, false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return Cursor{}, false
	}
	return Cursor{CreatedAt: Micros(n), ID: id}, true
}

// Page is one page of a list.
type Page[T any] struct {
	Data       []T
	NextCursor *string
}

// PageOf cuts rows fetched with limit+1 to a page: the extra row only tells
// that there is a next page.
func PageOf[T any](rows []T, limit int, cursorOf func(T) Cursor) Page[T] {
	if len(rows) <= limit {
		return Page[T]{Data: rows}
	}
	rows = rows[:limit]
	next := cursorOf(rows[limit-1]).Encode()
	return Page[T]{Data: rows, NextCursor: &next}
}

// EveryPage walks a list to its end, page by page (the application's and
// the operator commands' lists, which show every row).
func EveryPage[T any](list func(PageRequest) (Page[T], error)) ([]T, error) {
	var all []T
	limit := MaxPageLimit
	p := PageRequest{Limit: limit}
	for {
		page, err := list(p)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Data...)
		if page.NextCursor == nil {
			return all, nil
		}
		if p, err = ParsePageRequest(&limit, *page.NextCursor); err != nil {
			return nil, err
		}
	}
}
