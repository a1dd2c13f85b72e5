package httpapi

import (
	"bytes"
	"compress/gzip"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// compressMin is the size from which a response is worth compressing:
// below it gzip's framing and the CPU cost outweigh the bytes saved.
const compressMin = 1024

var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// compress gzips responses over compressMin bytes for a client whose
// Accept-Encoding takes gzip. Server-sent events (flushed as they come)
// and bodies already compressed (a Content-Encoding, or a compressed media
// type) pass unchanged.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r.Header.Get("Accept-Encoding")) || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		cw := &compressWriter{ResponseWriter: w}
		defer cw.close()
		next.ServeHTTP(cw, r)
	})
}

// acceptsGzip tells whether an Accept-Encoding takes gzip: named, or as
// "*", without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimPrefix(strings.ReplaceAll(params, " ", ""), "q="), 64)
		return err != nil || q > 0 // no (readable) weight: taken
	}
	return false
}

// compressWriter holds the first compressMin bytes of a response until it
// knows whether to compress it: the status waits with them.
type compressWriter struct {
	http.ResponseWriter
	status  int
	buf     bytes.Buffer
	decided bool
	gz      *gzip.Writer // nil: the response goes out as written
}

func (w *compressWriter) WriteHeader(code int) {
	if w.status != 0 || w.decided {
		return
	}
	if code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		w.decided = true
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.status = code
	if !compressible(w.Header()) {
		w.decide(false) // nothing to wait for: an event stream's headers go at once
	}
}

func (w *compressWriter) Write(b []byte) (int, error) {
	if w.status == 0 && !w.decided {
		w.status = http.StatusOK
	}
	if !w.decided {
		if w.buf.Len()+len(b) <= compressMin {
			return w.buf.Write(b)
		}
		w.decide(true)
	}
	if w.gz != nil {
		return w.gz.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is held: a flushing response (server-sent events) is
// streamed as written, never compressed.
func (w *compressWriter) Flush() {
	if !w.decided {
		w.decide(false)
	}
	if w.gz != nil {
		_ = w.gz.Flush()
	}
	http.NewResponseController(w.ResponseWriter).Flush() //nolint:errcheck // a writer that cannot flush sends at the end
}

func (w *compressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// decide sends the status and the held bytes, through gzip when the
// response is large (big) and compressible.
func (w *compressWriter) decide(big bool) {
	w.decided = true
	h := w.Header()
	if big && compressible(h) && w.status != http.StatusPartialContent {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		w.gz = gzipWriters.Get().(*gzip.Writer)
		w.gz.Reset(w.ResponseWriter)
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.ResponseWriter.WriteHeader(w.status)
	held := w.buf.Bytes()
	if w.gz != nil {
		_, _ = w.gz.Write(held)
	} else if len(held) > 0 {
		_, _ = w.ResponseWriter.Write(held)
	}
	w.buf = bytes.Buffer{}
}

// close ends the response: a small one goes out as it is.
func (w *compressWriter) close() {
	if !w.decided {
		if w.status == 0 {
			return // nothing was written: the server answers 200 empty itself
		}
		w.decide(false)
	}
	if w.gz != nil {
		_ = w.gz.Close()
		gzipWriters.Put(w.gz)
		w.gz = nil
	}
}

// compressible tells whether a response's body may be gzipped: not yet
// encoded, not a stream of events, not a media type that is compressed
// already.
func compressible(h http.Header) bool {
	if h.Get("Content-Encoding") != "" {
		return false
	}
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	switch {
	case mt == "text/event-stream":
		return false
	case mt == "image/svg+xml":
		return true
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "video/"), strings.HasPrefix(mt, "audio/"),
		strings.HasPrefix(mt, "font/woff"):
		return false
	}
	return !strings.Contains(mt, "zip") && !strings.Contains(mt, "compressed")
}
