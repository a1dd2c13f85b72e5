package planning

// The plan cache is bounded by memory (DefaultCacheBytes). A plan's size
// is estimated from what it holds rather than measured: the planner's
// input and answer per job and per step, with the strings and slices they
// point to, and the compiled calendar. The estimate errs high; it only
// needs to follow the plans' number and size.
const (
	planBaseBytes    = 4 << 10 // the Plan, its settings, zone and calendar
	planPerJobBytes  = 384     // DispatchJob and its JobOutlook
	planPerStepBytes = 512     // DispatchStep, its placement, ids and skills
	planPerResource  = 256     // a technician or a bay
)

// size is the plan's estimated memory in bytes.
func (p *Plan) size() int {
	n := planBaseBytes + planPerResource*(len(p.Input.Techs)+len(p.Input.Bays))
	for _, j := range p.Input.Jobs {
		n += planPerJobBytes + len(j.Steps)*planPerStepBytes
	}
	return n
}
