package bench

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The receiver the slow-receiver scenario starts as a process of its own:
// it prints its address, holds each answer for its delay, counts per path
// and stops when its input is closed.
func TestServeReceiver(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeReceiver(context.Background(), 30*time.Millisecond, inR, outW) }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(line)

	start := time.Now()
	resp, err := http.Post(base+"/hook/1", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if took := time.Since(start); resp.StatusCode != http.StatusOK || took < 30*time.Millisecond {
		t.Errorf("delivery: got %d after %s, want 200 after at least 30ms", resp.StatusCode, took)
	}
	for path, want := range map[string]string{"/hook/1": "1", "/hook/2": "0"} {
		resp, err := http.Get(base + "/_count?path=" + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.TrimSpace(string(b)); got != want {
			t.Errorf("count of %s: got %q, want %q", path, got, want)
		}
	}

	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after its input closed: got %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the receiver did not stop when its input was closed")
	}
}
