package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The slow-receiver figure is about the dispatcher's worker pool. A
// receiver in the dispatcher's own process shares its Go scheduler: on a
// 2-core machine its 64 sleeping handlers wait for a processor behind the
// database work, and the figure measured that wait as well. A real receiver
// runs elsewhere, so the bench starts one as a process of its own
// (`workshop bench receiver`).

// countingReceiver is a receiver process the bench can ask how many
// deliveries reached a path.
type countingReceiver struct {
	base  string
	count func(path string) (int64, error)
	stop  func()
}

// waitCount waits until path has n deliveries (at most limit).
func (r countingReceiver) waitCount(ctx context.Context, path string, n int64, limit time.Duration) error {
	return waitFor(ctx, path, n, limit, func() (int64, error) { return r.count(path) })
}

// startReceiver starts command (plus --delay) as a receiver process
// answering after delay.
func startReceiver(ctx context.Context, command []string, delay time.Duration) (countingReceiver, error) {
	if len(command) == 0 {
		return countingReceiver{}, errors.New("no command to start a receiver process with (Config.ReceiverCommand)")
	}
	cmd := exec.CommandContext(ctx, command[0], append(command[1:], "--delay", delay.String())...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe() // closed: the receiver exits
	if err != nil {
		return countingReceiver{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return countingReceiver{}, err
	}
	if err := cmd.Start(); err != nil {
		return countingReceiver{}, fmt.Errorf("start the receiver: %w", err)
	}
	stop := func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return countingReceiver{}, fmt.Errorf("the receiver printed no address: %v %s", err, stderr.String())
	}
	base := strings.TrimSpace(line)
	client := &http.Client{Timeout: 10 * time.Second}
	count := func(path string) (int64, error) {
		resp, err := client.Get(base + "/_count?path=" + url.QueryEscape(path))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return 0, err
		}
		return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	return countingReceiver{base: base, count: count, stop: stop}, nil
}

// ServeReceiver runs a receiver answering 200 after delay, prints its base
// URL as the first line of stdout and serves until stdin is closed (its
// bench is done or gone) or ctx ends. GET /_count?path=P says how many
// deliveries reached P.
func ServeReceiver(ctx context.Context, delay time.Duration, stdin io.Reader, stdout io.Writer) error {
	h := &hookReceiver{delay: delay, count: map[string]*atomic.Int64{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /_count", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, h.counter(r.URL.Query().Get("path")).Load())
	})
	mux.Handle("/", h)
	base, stop, err := listen(mux)
	if err != nil {
		return err
	}
	defer stop()
	if _, err := fmt.Fprintln(stdout, base); err != nil {
		return err
	}
	closed := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stdin)
		closed <- err
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-closed:
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
}
