package mcpserver

// toolSpec is one tool: a REST read (by its operationId in
// api/openapi.yaml) under a name and a description written for an
// assistant. Its input schema is the read's parameters, its output schema
// the read's 200 body.
type toolSpec struct {
	name, operationID, title, description string
	// locationRequired: the REST read needs locationId from an
	// organisation-wide credential, and MCP tokens are organisation-wide.
	locationRequired bool
}

// pagination is said of every list.
const pagination = " Pages hold `limit` records (default 50, at most 200); pass the answer's `nextCursor` back as `cursor` for the next page (null on the last page)."

// findLocations tells an assistant where location ids come from.
const findLocations = " Location ids (loc_...) are in get_workshop_settings (one entry per location, with its time zone) and on every job, technician and bay."

// tools are the twelve read-only tools (tools/list gives them by name).
var tools = []toolSpec{
	{
		name: "list_jobs", operationID: "listJobs", title: "List jobs",
		description: "List jobs (one vehicle's visit each) across the organisation's locations, oldest first, without their steps: " +
			"repair-order number, vehicle, promise time, arrival, priority, source and the status derived from the steps " +
			"(booked, arrived, in_progress, waiting, ready, delivered, cancelled). Filter by locationId, status " +
			"(comma-separated), externalKey (the caller system's own id of a job) or updatedSince (RFC 3339)." + pagination +
			" The JSON of GET /v1/scheduler/jobs.",
	},
	{
		name: "get_job", operationID: "getJob", title: "Get a job",
		description: "Get one job by its id (job_...) with its steps ordered by phase: each step's label, status (pending, " +
			"in_progress, completed), estimated minutes, assigned technicians and bay, and notBefore (the earliest the plan may " +
			"start it, set by a person who scheduled it; null: the planner chooses). The JSON of GET /v1/scheduler/jobs/{jobId}.",
	},
	{
		name: "get_job_detail", operationID: "getJobDetail", title: "Get a job's detail",
		description: "Get a job's rich detail by its id: planned versus actual start and end for the job and each step, the hold " +
			"and delay history, the promise (projected completion, at risk, slack minutes) and verification. Works for " +
			"delivered and cancelled jobs too (vehicle history). The JSON of GET /v1/scheduler/jobs/{jobId}/detail.",
	},
	{
		name: "get_board_summary", operationID: "getBoard", title: "Get a location's board", locationRequired: true,
		description: "Get a location's live board: job counts by every status (zeros included), the total, the late jobs " +
			"(past their promise time and not ready, delivered or cancelled) and bay occupancy (per bay: status, occupied, " +
			"the job and step in it). locationId is required." + findLocations + " The JSON of GET /v1/scheduler/board.",
	},
	{
		name: "list_cancel_reason_tags", operationID: "listCancelReasonTags", title: "List cancel reason tags", locationRequired: true,
		description: "List the reason tags a location accepts when a job is cancelled (tag and label, in their set order); " +
			"tags vary by location. locationId is required." + findLocations +
			" The JSON of GET /v1/scheduler/cancel-reason-tags.",
	},
	{
		name: "list_technicians", operationID: "listTechnicians", title: "List technicians",
		description: "List technicians, oldest first: location, name, skills, work-in-progress limit, operational status " +
			"(available, on_break, unavailable), whether they are clocked in, and workingHours (null: all of the location's " +
			"opening hours; else the weekly periods they work, local HH:MM). Filter by locationId." + pagination +
			" The JSON of GET /v1/scheduler/technicians.",
	},
	{
		name: "list_bays", operationID: "listBays", title: "List bays",
		description: "List service bays, oldest first: location, name, equipment, the service codes they handle, status " +
			"(available, maintenance) and whether a step in progress occupies them. Filter by locationId." + pagination +
			" The JSON of GET /v1/scheduler/bays.",
	},
	{
		name: "list_catalog", operationID: "listCatalog", title: "List the service catalog",
		description: "List the service catalog, oldest first: each standard service's code, name, estimated duration in " +
			"minutes, required skills and whether it is active. Filter by locationId." + pagination +
			" The JSON of GET /v1/scheduler/catalog.",
	},
	{
		name: "get_plan", operationID: "getPlan", title: "Get a location's dispatch plan", locationRequired: true,
		description: "Get a location's dispatch plan: which technician and bay does each open step when, from now (or the " +
			"opening of date, YYYY-MM-DD) over up to 14 days, respecting working hours, breaks, skills, bay services, " +
			"maintenance, phases, the bay buffer and steps scheduled by a person (notBefore). Lists the planned steps (pinned: " +
			"already assigned or in progress), the " +
			"steps that cannot be placed with their reason, and per job the projected completion, whether it is at risk and " +
			"by how many minutes it is late for its promise; totals at the end. locationId is required." + findLocations +
			" The JSON of GET /v1/scheduler/plan.",
	},
	{
		name: "get_availability", operationID: "getAvailability", title: "Quote when a new job could be done", locationRequired: true,
		description: "Quote when a new job with the given services (serviceCodes: catalog service codes, done one after " +
			"another in that order) could be finished if the vehicle arrived at from (RFC 3339; now by default), without " +
			"moving planned work: the earliest completion to offer as the promise time, and each step's technician, bay and " +
			"times. With learned durations the completion includes marginMinutes of working time for the location's promise " +
			"confidence (the share of promises it wants kept). Service codes are in list_catalog. locationId is required." + findLocations +
			" The JSON of GET /v1/scheduler/availability.",
	},
	{
		name: "get_workshop_settings", operationID: "getWorkshopSettings", title: "Get workshop settings",
		description: "Get every location's workshop settings as {\"data\": [...]}, one entry per location: its id, time zone, " +
			"operating hours per weekday, breaks and the buffer in minutes between two steps in one bay. The way to find " +
			"the locations. The JSON of GET /v1/scheduler/workshop.",
	},
	{
		name: "list_attendance", operationID: "listAttendance", title: "List attendance",
		description: "List technicians' clock-in and clock-out records, oldest first, with times in the location's local " +
			"time. Filter by locationId, techId and local work dates from and to (YYYY-MM-DD, inclusive)." + pagination +
			" The JSON of GET /v1/scheduler/attendance.",
	},
}
