package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/store/storetest"
)

// TestRunImportExport: `workshop admin import` prints the counts on
// stdout and, for a file with an invalid location, every error as one JSON
// object a line on stderr, exit 1, after writing the valid locations;
// `export` prints the document, which imported again changes nothing.
func TestRunImportExport(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		env := map[string]string{"WORKSHOP_DATABASE_URL": db.URL}
		if r := runCmd(t, env, "migrate"); r.code != 0 {
			t.Fatalf("migrate: %d %s", r.code, r.stderr)
		}
		org := runCmd(t, env, "admin", "org", "create", "--name", "Group").object(t)["id"].(string)
		dir := t.TempDir()
		file := filepath.Join(dir, "group.json")
		doc := `{"locations":[{"name":"A","timezone":"Europe/Berlin","technicians":[{"name":"T","skills":["ev"]}]},
			{"name":"B","timezone":"UTC","technicians":[{"name":"U","skills":"ev"}]}]}`
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCmd(t, env, "admin", "import", "--org", org, "--file", file)
		if r.code != 1 {
			t.Fatalf("import of a file with an invalid location: exit %d, want 1 (stderr %q)", r.code, r.stderr)
		}
		var errLine struct{ Path, Message string }
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.stderr)), &errLine); err != nil || errLine.Path != "locations[1].technicians[0].skills" || errLine.Message == "" {
			t.Errorf("stderr = %q (%v); want one JSON line with the path locations[1].technicians[0].skills", r.stderr, err)
		}
		var out struct{ Created, Updated, Unchanged map[string]int }
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Created["locations"] != 1 || out.Created["technicians"] != 1 {
			t.Errorf("stdout = %q (%v); want 1 location and 1 technician created", r.stdout, err)
		}
		exported := runCmd(t, env, "admin", "export", "--org", org)
		if exported.code != 0 || !strings.Contains(exported.stdout, `"name":"A"`) || strings.Contains(exported.stdout, `"name":"B"`) {
			t.Fatalf("export: exit %d, %s", exported.code, exported.stdout)
		}
		if err := os.WriteFile(file, []byte(exported.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, dry := range []bool{true, false} {
			args := []string{"admin", "import", "--org", org, "--file", file}
			if dry {
				args = append(args, "--dry-run")
			}
			again := runCmd(t, env, args...).object(t)
			if u := again["updated"].(map[string]any); u["locations"] != 0.0 || u["technicians"] != 0.0 {
				t.Errorf("import of the export (dry %v): %v, want updated 0", dry, again)
			}
		}
	})
}
