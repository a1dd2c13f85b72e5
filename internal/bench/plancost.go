package bench

import (
	"syscall"
	"time"

	"github.com/workshop-platform/workshop/internal/workshop"
	"github.com/workshop-platform/workshop/internal/workshop/dispatchgen"
)

// planClass is a generated workshop size whose plans are timed.
type planClass struct {
	name  string
	class dispatchgen.Class
}

// workshopClass is the contract's 80 x 4 class at another size.
func workshopClass(name string, jobs, steps, techs, bays int) planClass {
	c := dispatchgen.Contract80x4
	c.Name, c.Jobs, c.Steps, c.Techs, c.Bays = name, [2]int{jobs, jobs}, [2]int{steps, steps}, [2]int{techs, techs}, [2]int{bays, bays}
	return planClass{name: name, class: c}
}

// planCPU is the process CPU time per plan (ms) of 16 generated instances
// of c planned three times each with budget (0: scaled to the size). CPU
// time rather than wall time: the machine may be shared.
func planCPU(c planClass, budget int) float64 {
	ins := make([]workshop.DispatchInput, 16)
	for i := range ins {
		ins[i] = dispatchgen.Generate(uint64(i), c.class)
		ins[i].Budget = budget
	}
	const rounds = 3
	began := processTime()
	for range rounds {
		for _, in := range ins {
			workshop.PlanDispatch(in)
		}
	}
	return float64(processTime()-began) / float64(time.Millisecond) / float64(rounds*len(ins))
}

// processTime is this process's CPU time so far (user and system).
func processTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
