package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// chromiumPath is the headless browser of the browser tests; the test is
// skipped, saying so, with -short, or when there is none and CI is not set.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests skipped with -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("browser tests need Chromium in CI: apt-get install -y chromium")
	}
	t.Skip("browser tests skipped: no Chromium (apt-get install -y chromium)")
	return ""
}

// chrome is one headless Chromium tab and what its pages logged.
type chrome struct {
	ctx context.Context
	// allowed says which console messages a test expects (a 401 of a
	// wrong password, say); every other error or exception is a fault.
	allowed func(text string) bool

	mu     sync.Mutex
	errors []string
}

// browserTests lets two tests drive browsers at once: each test's pages
// with its server take most of a core, and with every browser test at once
// on two cores the pages' 20-second steps ran out (CI, issue 29). A test
// takes its turn at its first tab and keeps it, with any second tab it
// opens, until it ends.
var browserTests = struct {
	sync.Mutex
	turns   chan struct{}
	holding map[string]bool
}{turns: make(chan struct{}, 2), holding: map[string]bool{}}

// browserTurn waits for the test's turn to drive browsers, once per test
// (its subtests share it).
func browserTurn(t *testing.T) {
	top, _, _ := strings.Cut(t.Name(), "/")
	browserTests.Lock()
	held := browserTests.holding[top]
	browserTests.Unlock()
	if held {
		return
	}
	select {
	case browserTests.turns <- struct{}{}:
	case <-t.Context().Done():
		t.Fatal("the test ended waiting for its turn to drive a browser")
	}
	browserTests.Lock()
	browserTests.holding[top] = true
	browserTests.Unlock()
	t.Cleanup(func() {
		browserTests.Lock()
		delete(browserTests.holding, top)
		browserTests.Unlock()
		<-browserTests.turns
	})
}

// sharedBrowser is the one Chromium of the package's browser tests,
// started by the first of them and closed by TestMain (closeBrowser): each
// test drives a tab in a browser context of its own, with its own cookies
// and storage, instead of starting Chromium for itself (a second or more
// of a core each time).
var sharedBrowser struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab, which keeps it running
	cancel func()
	err    error
}

// sharedChromium is the shared Chromium, started on first use.
func sharedChromium(t *testing.T, path string) context.Context {
	t.Helper()
	sharedBrowser.once.Do(func() {
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Flag("disable-dev-shm-usage", true))...)
		ctx, cancel := chromedp.NewContext(alloc)
		sharedBrowser.ctx, sharedBrowser.cancel = ctx, func() { cancel(); cancelAlloc() }
		// The first run starts the browser and ties it to the context it
		// is given: this one, not a shorter one of its own.
		sharedBrowser.err = chromedp.Do(ctx)
	})
	if sharedBrowser.err != nil {
		t.Fatalf("starting Chromium: %v", sharedBrowser.err)
	}
	return sharedBrowser.ctx
}

// closeBrowser ends the shared Chromium, if a test started it.
func closeBrowser() {
	if sharedBrowser.cancel != nil {
		sharedBrowser.cancel()
	}
}

// newChrome opens a tab for the test in a browser context of its own in
// the shared Chromium (a minute for all it does), closed when the test
// ends, and collects the console errors of its pages.
func newChrome(t *testing.T) *chrome {
	t.Helper()
	path := chromiumPath(t)
	browserTurn(t)
	ctx, cancel := chromedp.NewContext(sharedChromium(t, path), chromedp.WithNewBrowserContext())
	// The tab closes as the test's function returns (t.Context is done
	// then), before the test's cleanups stop its servers: a page still open
	// would log their going away as errors.
	stop := context.AfterFunc(t.Context(), cancel)
	t.Cleanup(func() { stop(); cancel() })
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	b := &chrome{ctx: ctx, allowed: func(string) bool { return false }}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if t.Context().Err() != nil {
				continue // the test is over: what its closing page logs is not its fault
			}
			if (m.IsException() || m.Type == "error") && !b.allowed(m.String()) {
				b.mu.Lock()
				b.errors = append(b.errors, m.String())
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(b.errors) > 0 {
			t.Errorf("console errors: %v", b.errors)
		}
	})
	return b
}

// do runs actions (45 s at most: a page under CI's load, behind the
// other tests, has been seen to take over 20), failing the test with what
// it was doing and the text of the page it was on.
func (b *chrome) do(t *testing.T, doing string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 45*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname + ": " + document.body.innerText.slice(0, 1500)`))
		t.Fatalf("browser, %s: %v\non %s", doing, err, page)
	}
}

// navigate opens url in the tab and waits until its document, a new one,
// has loaded. It replaces chromedp.Navigate, which waits for the load
// events of the DevTools protocol: on CI's busy machine it was seen to wait
// out its 45 s on a page the tab showed complete (issue 34's runs, on
// /developer and on the technicians page). The old document is marked, so
// a redirect to another address is followed and the page left behind is
// never taken for the new one.
func navigate(url string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Evaluate[bool](`window.leftByTest = true`)(ctx, t); err != nil {
			return fmt.Errorf("marking the page left: %w", err)
		}
		switch res, err := cdp.Call(ctx, t, cdppage.Navigate, cdppage.NavigateParams{URL: url}); {
		case err != nil:
			return err
		case res.ErrorText != "":
			return fmt.Errorf("opening %s: %s", url, res.ErrorText)
		}
		_, err := waitFor(`!window.leftByTest && document.readyState === "complete"`, url+" to load")(ctx, t)
		return err
	})
}

// waitVisible waits until an element matching sel (a CSS selector) is
// shown. It replaces chromedp.WaitVisible, which finds the element in the
// document the DevTools protocol's DOM events described: in session 8's CI
// it waited out its 45 s on /developer, its h1 on the screen.
func waitVisible(sel string) chromedp.Action[chromedp.Void] {
	return waitFor(`(e => e !== null && e.getClientRects().length > 0)(document.querySelector(`+strconv.Quote(sel)+`))`, sel+" to show")
}

// waitFor waits until the JavaScript condition cond holds in the page,
// asking it afresh every 25 ms, across the page being replaced meanwhile
// (between two documents there is none to ask: an error, and the next
// turn asks the new one); what names the wait in its error.
func waitFor(cond, what string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			ok, err := chromedp.Evaluate[bool](cond)(ctx, t)
			if err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
			case <-time.After(25 * time.Millisecond):
			}
		}
	})
}

// text is the text of the first element matching sel.
func (b *chrome) text(t *testing.T, sel string) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("browser, text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

// location is the page's address.
func (b *chrome) location(t *testing.T) string {
	t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// axeSource is axe-core (npm axe-core, MPL-2.0), the accessibility engine
// the browser tests run in each page they check.
//
//go:embed testdata/axe-4.14.1.min.js
var axeSource string

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// checkAccessible runs axe-core (WCAG 2.x A and AA rules) on the page shown
// and fails the test on every serious or critical violation.
func (b *chrome) checkAccessible(t *testing.T, page string) {
	t.Helper()
	b.checkAxe(t, page, "document", `{runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}`)
}

// checkAxe runs axe-core with options (a JavaScript object) on the part of
// the page context names (axe's context: "document", or an object of
// selectors to include) and fails the test on every serious or critical
// violation. Only violations are gathered in full (resultTypes): the
// passes would cost as much again.
func (b *chrome) checkAxe(t *testing.T, page, context, options string) {
	t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](axeSource+";true")); err != nil {
		t.Fatalf("browser, loading axe-core on %s: %v", page, err)
	}
	violations, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]axeViolation](
		`axe.run(`+context+`, Object.assign({resultTypes: ["violations"]}, `+options+`)).then(r => r.violations)`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("browser, axe-core on %s: %v", page, err)
	}
	for _, v := range violations {
		if v.Impact == "serious" || v.Impact == "critical" {
			var where []string
			for _, n := range v.Nodes {
				where = append(where, fmt.Sprint(n.Target...))
			}
			t.Errorf("%s: axe %s (%s): %s at %v", page, v.ID, v.Impact, v.Help, where)
		}
	}
}

// smallTargets lists the controls of the page shorter or narrower than 44
// CSS pixels: the touch targets a gloved hand on a tablet misses. A
// checkbox or radio button counts as its label, which takes the tap.
func (b *chrome) smallTargets(t *testing.T) []string {
	t.Helper()
	small, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(
		"button, input:not([type=hidden]), select, textarea, main a, header a")]
		.filter(e => e.offsetParent !== null)
		.map(e => (e.type === "checkbox" || e.type === "radio") && e.closest("label") ? e.closest("label") : e)
		.map(e => [e, e.getBoundingClientRect()])
		.filter(([e, r]) => r.height < 44 || r.width < 44)
		.map(([e, r]) => e.outerHTML.slice(0, 80) + " " + Math.round(r.width) + "x" + Math.round(r.height))`))
	if err != nil {
		t.Fatalf("browser, measuring controls: %v", err)
	}
	return small
}

// checkShopFloor checks the page shown as the shop floor uses it: on a
// 768-px tablet held upright and on a 1920-px TV, nothing wider than the
// screen (no sideways scrolling) and, on the tablet, no control smaller
// than a fingertip; and axe-core finds nothing serious.
func (b *chrome) checkShopFloor(t *testing.T, page string) {
	t.Helper()
	for _, screen := range []struct {
		name          string
		width, height int64
	}{{"tablet", 768, 1024}, {"TV", 1920, 1080}} {
		b.do(t, "sizing the window for a "+screen.name, chromedp.EmulateViewport(screen.width, screen.height))
		overflow, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if overflow > 0 {
			t.Errorf("%s on a %s (%d px): %d px wider than the screen", page, screen.name, screen.width, overflow)
		}
		if screen.name == "tablet" {
			if small := b.smallTargets(t); len(small) > 0 {
				t.Errorf("%s on a tablet: controls under 44 px: %v", page, small)
			}
		}
	}
	b.checkAccessible(t, page)
}
