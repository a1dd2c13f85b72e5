package operator_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/workshop-platform/workshop/internal/operator"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

const groupDoc = `{"locations":[
 {"name":"North","timezone":"Europe/Berlin","currency":"EUR",
  "operatingHours":[{"day":"mon","open":"08:00","close":"17:00"},{"day":"tue","open":"08:00","close":"17:00"}],
  "breaks":[{"day":"mon","start":"12:00","end":"12:30"}],"bayBufferMinutes":5,"planningDurations":"p80","promiseConfidence":0.9,
  "cancelTags":[{"tag":"no_show","label":"No show"},{"tag":"parts"}],
  "technicians":[{"name":"Ana","skills":["ev","brakes"],"wipLimit":3,"workingHours":[{"day":"mon","start":"08:00","end":"14:00"}]},{"name":"Ben","workingHours":null}],
  "bays":[{"name":"Bay 1","equipment":["lift"],"services":["OIL"]}],
  "catalog":[{"serviceCode":"OIL","name":"Oil change","estimatedDuration":45,"requiredSkills":[],"isActive":true}]},
 {"name":"South","timezone":"Europe/Paris","technicians":[{"name":"Cy","skills":["ev"]}]}
]}`

func importDoc(t *testing.T, e env, doc string, dry bool) (operator.ImportOut, []operator.ImportError) {
	t.Helper()
	out, err := e.op.Import(t.Context(), e.org.ID, strings.NewReader(doc), dry)
	var failed *operator.ImportFailed
	if errors.As(err, &failed) {
		return out, failed.Errors
	}
	if err != nil {
		t.Fatalf("Import: %v", err)
	}
	return out, nil
}

func counts(l, tech, bays, cat int) operator.ImportCounts {
	return operator.ImportCounts{Locations: l, Technicians: tech, Bays: bays, CatalogItems: cat}
}

func exportDoc(t *testing.T, e env) string {
	t.Helper()
	doc, err := e.op.Export(t.Context(), e.org.ID)
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportCreatesUpdatesAndSaysUnchanged: an import creates what it
// names, a second one of the same file changes nothing and says so, the
// export recreates the setup, and a changed file updates only what changed.
func TestImportCreatesUpdatesAndSaysUnchanged(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		ctx := t.Context()
		seq := lastEventSeq(t, e)
		dry, errs := importDoc(t, e, groupDoc, true)
		if len(errs) != 0 || dry.Created != counts(2, 3, 1, 1) || len(dry.Changes) != 7 {
			t.Fatalf("dry run = %+v, %v; want 2 locations, 3 technicians, 1 bay, 1 item to create, 7 changes", dry, errs)
		}
		if got := exportDoc(t, e); strings.Contains(got, "North") {
			t.Fatalf("the dry run wrote: %s", got)
		}
		out, errs := importDoc(t, e, groupDoc, false)
		if len(errs) != 0 || out.Created != counts(2, 3, 1, 1) || out.Updated != counts(0, 0, 0, 0) {
			t.Fatalf("first import = %+v, %v; want everything created", out, errs)
		}
		if after := lastEventSeq(t, e); after != seq {
			t.Errorf("the import recorded events (seq %d -> %d); the application's setup edits record none", seq, after)
		}
		again, errs := importDoc(t, e, groupDoc, false)
		if len(errs) != 0 || again.Created != counts(0, 0, 0, 0) || again.Updated != counts(0, 0, 0, 0) || again.Unchanged != counts(2, 3, 1, 1) {
			t.Fatalf("second import = %+v, %v; want everything unchanged", again, errs)
		}
		exported := exportDoc(t, e)
		back, errs := importDoc(t, e, exported, false)
		if len(errs) != 0 || back.Updated != counts(0, 0, 0, 0) || back.Created != counts(0, 0, 0, 0) {
			t.Fatalf("import of the export = %+v, %v; want nothing changed", back, errs)
		}
		for _, want := range []string{`"promiseConfidence":0.9`, `"planningDurations":"p80"`, `"bayBufferMinutes":5`, `{"tag":"parts","label":"Parts"}`,
			`{"name":"Ana","skills":["ev","brakes"],"wipLimit":3,"workingHours":[{"day":"mon","start":"08:00","end":"14:00"}]}`,
			`{"name":"Ben","skills":[],"wipLimit":2,"workingHours":null}`, `"services":["OIL"]`, `"estimatedDuration":45`} {
			if !strings.Contains(exported, want) {
				t.Errorf("export lacks %s: %s", want, exported)
			}
		}

		changed := strings.Replace(groupDoc, `"wipLimit":3`, `"wipLimit":4`, 1)
		changed = strings.Replace(changed, `"promiseConfidence":0.9`, `"promiseConfidence":0.8`, 1)
		up, errs := importDoc(t, e, changed, false)
		if len(errs) != 0 || up.Updated != counts(1, 1, 0, 0) || up.Unchanged != counts(1, 2, 1, 1) {
			t.Fatalf("import of a change = %+v, %v; want North and Ana updated", up, errs)
		}
		locs, err := e.st.Locations(ctx, e.org.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 3 { // Site, North, South
			t.Errorf("locations: %d, want 3 (the import deletes nothing)", len(locs))
		}
	})
}

// TestImportRefusesBadEntries: a location with any invalid entry is
// written not at all, every error named by its path; the valid locations
// of the same file are written.
func TestImportRefusesBadEntries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		location  string // the second location of the file
		wantPaths []string
	}{
		{"wrong type", `{"name":"Bad","timezone":"UTC","technicians":[{"name":"X","skills":"ev"}]}`, []string{"locations[1].technicians[0].skills"}},
		{"unknown field", `{"name":"Bad","timezone":"UTC","bays":[{"name":"B","lift":true}]}`, []string{"locations[1].bays[0].lift"}},
		{"unknown location field", `{"name":"Bad","timezone":"UTC","owner":"me"}`, []string{"locations[1].owner"}},
		{"duplicate technician", `{"name":"Bad","timezone":"UTC","technicians":[{"name":"X"},{"name":"Y"},{"name":"X"}]}`,
			[]string{"locations[1].technicians[2].name"}},
		{"duplicate service code", `{"name":"Bad","timezone":"UTC","catalog":[{"serviceCode":"A","name":"a","estimatedDuration":5},{"serviceCode":"A","name":"b","estimatedDuration":5}]}`,
			[]string{"locations[1].catalog[1].serviceCode"}},
		{"duplicate location", `{"name":"Good","timezone":"UTC"}`, []string{"locations[1].name"}},
		{"rules of the API", `{"name":"Bad","timezone":"Nowhere/City","technicians":[{"name":"","wipLimit":99}],"catalog":[{"serviceCode":"no spaces","name":"x","estimatedDuration":0}]}`,
			[]string{"locations[1].timezone", "locations[1].technicians[0].name", "locations[1].technicians[0].wipLimit",
				"locations[1].catalog[0].serviceCode", "locations[1].catalog[0].estimatedDuration"}},
		{"settings", `{"name":"Bad","timezone":"UTC","operatingHours":[{"day":"mon","open":"18:00","close":"08:00"}],"promiseConfidence":2,"planningDurations":"p99"}`,
			[]string{"locations[1].operatingHours.mon", "locations[1].planningDurations", "locations[1].promiseConfidence"}},
		{"hours without breaks", `{"name":"Bad","timezone":"UTC","operatingHours":[{"day":"mon","open":"08:00","close":"12:00"}],"technicians":[{"name":"X","wipLimit":0}]}`,
			[]string{"locations[1].technicians[0].wipLimit"}},
		{"break outside hours", `{"name":"Bad","timezone":"UTC","operatingHours":[{"day":"mon","open":"08:00","close":"12:00"}],"breaks":[{"day":"mon","start":"13:00","end":"14:00"}]}`,
			[]string{"locations[1].breaks.mon"}},
		{"working hours", `{"name":"Bad","timezone":"UTC","technicians":[{"name":"X","workingHours":[{"day":"someday","start":"08:00","end":"07:00"}]}]}`,
			[]string{"locations[1].technicians[0].workingHours"}},
		{"cancel tag", `{"name":"Bad","timezone":"UTC","cancelTags":[{"tag":"Not A Tag"}]}`, []string{"locations[1].cancelTags[0].tag"}},
		{"not an object", `"Bad"`, []string{"locations[1]"}},
		{"null entry", `{"name":"Bad","timezone":"UTC","bays":[null]}`, []string{"locations[1].bays[0]"}},
		{"too many entries", `{"name":"Bad","timezone":"UTC","bays":[` + strings.Repeat(`{"name":"b"},`, operator.MaxImportEntries) + `{"name":"b"}]}`,
			[]string{"locations[1].bays"}},
		{"long list", `{"name":"Bad","timezone":"UTC","technicians":[{"name":"X","skills":[` + skillList(workshop.MaxListEntries+1) + `]}]}`,
			[]string{"locations[1].technicians[0].skills"}},
	}
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t, db)
				doc := `{"locations":[{"name":"Good","timezone":"UTC","technicians":[{"name":"G"}]},` + tc.location + `]}`
				out, errs := importDoc(t, e, doc, false)
				var paths []string
				for _, ie := range errs {
					paths = append(paths, ie.Path)
					if ie.Message == "" {
						t.Errorf("error at %s without a message", ie.Path)
					}
				}
				slices.Sort(paths)
				want := slices.Sorted(slices.Values(tc.wantPaths))
				if !slices.Equal(paths, want) {
					t.Errorf("error paths = %v, want %v", paths, want)
				}
				if out.Created != counts(1, 1, 0, 0) {
					t.Errorf("created %+v, want the valid location and its technician", out.Created)
				}
				if got := exportDoc(t, e); strings.Contains(got, `"Bad"`) {
					t.Errorf("the invalid location was written: %s", got)
				}
			})
		}
	})
}

// TestImportRefusesBadDocuments: a document that is not one (not JSON,
// trailing data, too large, too many locations) writes nothing.
func TestImportRefusesBadDocuments(t *testing.T) {
	t.Parallel()
	huge := func() io.Reader {
		return io.MultiReader(strings.NewReader(`{"locations":[`), bytes.NewReader(bytes.Repeat([]byte(" "), operator.MaxImportBytes)),
			strings.NewReader(`]}`))
	}
	text := func(s string) func() io.Reader { return func() io.Reader { return strings.NewReader(s) } }
	tests := []struct {
		name     string
		doc      func() io.Reader
		wantPath string
	}{
		{"not JSON", text(`locations: []`), ""},
		{"a list", text(`[]`), ""},
		{"no locations", text(`{}`), "locations"},
		{"locations not a list", text(`{"locations":{"a":1}}`), "locations"},
		{"trailing data", text(`{"locations":[]} {"locations":[]}`), ""},
		{"cut short", text(`{"locations":[{"name":"A"`), ""},
		{"too large", huge, ""},
		{"too many locations", text(`{"locations":[` + strings.Repeat(`{},`, operator.MaxImportLocations) + `{}]}`), "locations"},
	}
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		for _, tc := range tests {
			out, err := e.op.Import(t.Context(), e.org.ID, tc.doc(), false)
			var failed *operator.ImportFailed
			if !errors.As(err, &failed) || len(failed.Errors) != 1 || failed.Errors[0].Path != tc.wantPath {
				t.Errorf("%s: Import = %+v, %v; want one error at %q", tc.name, out, err, tc.wantPath)
			}
		}
		if got := exportDoc(t, e); strings.Count(got, `"name"`) != 1 {
			t.Errorf("a refused document wrote: %s", got)
		}
	})
}

// TestImportLargeGroup: 200 locations in one file, imported and imported
// again (the 1,000-location figure is docs/benchmarks.md's).
func TestImportLargeGroup(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		doc := operator.SampleGroup(200)
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		out, errs := importDoc(t, e, string(b), false)
		if len(errs) != 0 || out.Created.Locations != 200 || out.Created.Technicians != 200*8 {
			t.Fatalf("import = %+v, %v; want 200 locations, 1600 technicians", out, errs)
		}
		again, errs := importDoc(t, e, string(b), false)
		if len(errs) != 0 || again.Updated != counts(0, 0, 0, 0) || again.Created != counts(0, 0, 0, 0) {
			t.Fatalf("second import = %+v, %v; want nothing changed", again, errs)
		}
		if got := fmt.Sprint(again.Unchanged); got != fmt.Sprint(out.Created) {
			t.Errorf("unchanged %s, want what the first created %s", got, fmt.Sprint(out.Created))
		}
	})
}

func lastEventSeq(t *testing.T, e env) int64 {
	t.Helper()
	var last int64
	for {
		evs, err := e.st.EventsAfter(t.Context(), last, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			return last
		}
		last = evs[len(evs)-1].Seq
	}
}

func skillList(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", fmt.Sprint("skill", i))
	}
	return b.String()
}

// TestWriteSampleGroup writes SampleGroup(WORKSHOP_GROUP_SIZE, default
// 1000) to the file WORKSHOP_GROUP_FILE names: the import's benchmark
// (docs/benchmarks.md). Without the variable it does nothing.
func TestWriteSampleGroup(t *testing.T) {
	file := os.Getenv("WORKSHOP_GROUP_FILE")
	if file == "" {
		t.Skip("WORKSHOP_GROUP_FILE names the file to write")
	}
	n := 1000
	if s := os.Getenv("WORKSHOP_GROUP_SIZE"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(operator.SampleGroup(n), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportsAtOnce: two imports of the same file at once (two admin
// commands, or an import beside a server) make each location once.
func TestImportsAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newEnv(t, db)
		other := operator.New(storetest.Open(t, db.URL)) // another process's pool
		b, err := json.Marshal(operator.SampleGroup(20))
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 2)
		for _, op := range []*operator.Operator{e.op, other} {
			go func() {
				_, err := op.Import(t.Context(), e.org.ID, bytes.NewReader(b), false)
				errs <- err
			}()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("Import: %v", err)
			}
		}
		locs, err := e.st.Locations(t.Context(), e.org.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 21 { // Site and the 20
			t.Errorf("locations: %d, want 21 (each imported location once)", len(locs))
		}
		exported := exportDoc(t, e)
		if n := strings.Count(exported, `"name":"Technician 1"`); n != 20 {
			t.Errorf("technicians named Technician 1: %d, want one per location (20)", n)
		}
	})
}
