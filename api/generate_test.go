package api_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestGeneratedCodeIsCurrent fails when a generated file (the server's
// internal/httpapi/oapi/oapi.gen.go, the importable client/client.gen.go)
// is not what oapi-codegen makes of openapi.yaml now.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs oapi-codegen")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	for _, config := range []string{"oapi-codegen.yaml", "oapi-codegen-client.yaml"} {
		t.Run(config, func(t *testing.T) {
			t.Parallel()
			checkGenerated(t, goTool, config)
		})
	}
}

// outputRe is the line of an oapi-codegen config naming its output file.
var outputRe = regexp.MustCompile(`(?m)^output: *(.*)$`)

func checkGenerated(t *testing.T, goTool, configPath string) {
	config, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	m := outputRe.FindSubmatch(config)
	if m == nil {
		t.Fatalf("%s has no output line", configPath)
	}
	committedPath := filepath.FromSlash(string(m[1]))
	committed, err := os.ReadFile(committedPath)
	if err != nil {
		t.Fatal(err)
	}
	// The config's output wins over -o, so the copy in a temporary
	// directory names the temporary output: the committed file is never
	// written.
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.gen.go")
	config = outputRe.ReplaceAll(config, []byte("output: "+fresh))
	tmpConfig := filepath.Join(dir, configPath)
	if err := os.WriteFile(tmpConfig, config, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "tool", "oapi-codegen", "-config", tmpConfig, "-o", fresh, "openapi.yaml")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go tool oapi-codegen: %v\n%s", err, out)
	}
	generated, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(generated, committed) {
		t.Errorf("%s is stale: it differs from what oapi-codegen makes of openapi.yaml (first difference at line %d); run go generate ./...",
			committedPath, firstDifferentLine(generated, committed))
	}
}

func firstDifferentLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
