package bench

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/workshop-platform/workshop/internal/loadgen"
	"github.com/workshop-platform/workshop/internal/workshop"
)

func init() {
	scenarios["app_search"] = scenario{
		description: "the application's job search (GET /locations/{id}/jobs?q=, signed in: up to 50 jobs, open first) " +
			"in a location of 100,000 jobs (98% delivered), by parts of job numbers and plates, makes and models " +
			"(one in ten jobs), and one- and two-letter prefixes, open loop at 100 req/s",
		prepare: func(ctx context.Context, e *env) (loadgen.Request, error) { return e.search(ctx, 100_000) },
		rate:    100,
	}
}

// searchVehicles are the seeded jobs' makes and models, one in ten each.
var searchVehicles = [][2]string{
	{"Volkswagen", "Passat"}, {"Volkswagen", "Golf"}, {"Opel", "Astra"}, {"BMW", "X3"}, {"Skoda", "Octavia"},
	{"Audi", "A4"}, {"Ford", "Focus"}, {"Mercedes-Benz", "C 200"}, {"Toyota", "Corolla"}, {"Renault", "Clio"},
}

// searchPlate is the i-th seeded job's plate: a German-style plate such
// as "B-KW 1234", unique per job.
func searchPlate(i int) string {
	const letters = "ABCDEFGHKLMNPRSTUVWXYZ"
	cities := []string{"B", "HH", "M", "K", "F", "S", "DO", "HB"}
	return fmt.Sprintf("%s-%c%c %d", cities[i%len(cities)], letters[i/8%len(letters)], letters[i/176%len(letters)], 1000+i%9000)
}

// search seeds n jobs with vehicles, delivers 98% of them, and searches
// them with a rotating mix of queries an advisor types.
func (e *env) search(ctx context.Context, n int) (loadgen.Request, error) {
	jobs, err := e.seedJobsWith(ctx, n, 0, seedOptions{
		vehicle: func(i int, j *workshop.Job) {
			plate, v := searchPlate(i), searchVehicles[i%len(searchVehicles)]
			j.VehiclePlate, j.VehicleMake, j.VehicleModel = &plate, &v[0], &v[1]
		},
		// One job in 49 stays open: with one in 50, every open job was
		// the same vehicle (the tenth of the rotation), which no workshop
		// has and which misled PostgreSQL's estimates of the open jobs.
		deliver: func(i int) bool { return i%49 != 0 },
	})
	if err != nil {
		return nil, err
	}
	var queries []string
	for k := range 200 {
		j := jobs[(k*7919)%len(jobs)].job
		number := j.JobNumber
		plate := strings.NewReplacer(" ", "", "-", "").Replace(*j.VehiclePlate)
		queries = append(queries,
			number[len(number)-4:],                // the end of a job number, "0421"
			strings.ToLower(plate[len(plate)-5:]), // part of a plate, "w1234"
			strings.ToLower(*j.VehicleModel),      // a model, found in a tenth of the jobs
			strings.ToLower((*j.VehicleMake)[:2]), // a make's first letters, a prefix
			strings.ToLower(plate[:1]),            // one letter: the plates that start with it
		)
	}
	first, err := e.page(ctx, "/locations/"+e.locID+"/jobs?q="+url.QueryEscape(queries[0]))
	if err != nil {
		return nil, err
	}
	probe, err := first(0)
	if err != nil {
		return nil, err
	}
	cookie := probe.Cookies()
	return func(i int64) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodGet, e.base+"/locations/"+e.locID+"/jobs?q="+url.QueryEscape(queries[i%int64(len(queries))]), nil)
		if err != nil {
			return nil, err
		}
		for _, c := range cookie {
			r.AddCookie(c)
		}
		return r, nil
	}, nil
}
