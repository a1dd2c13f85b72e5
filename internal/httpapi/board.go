package httpapi

import (
	"context"

	"github.com/workshop-platform/workshop/internal/httpapi/oapi"
	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// BoardStore is what the board needs.
type BoardStore interface {
	Board(ctx context.Context, locationID string, now workshop.Micros) (store.Board, error)
}

func (h *handlers) GetBoard(ctx context.Context, req oapi.GetBoardRequestObject) (oapi.GetBoardResponseObject, error) {
	p := principalOf(ctx)
	loc, err := h.locationParam(ctx, p, deref(req.Params.LocationId), true)
	if err != nil {
		return nil, err
	}
	b, err := h.store.Board(ctx, loc, workshop.MicrosOf(h.now()))
	if err != nil {
		return nil, err
	}
	var out oapi.Board
	out.LocationId, out.GeneratedAt = b.LocationID, b.GeneratedAt
	j := &out.Jobs
	j.Booked, j.Arrived, j.InProgress, j.Waiting = b.Jobs[workshop.JobBooked], b.Jobs[workshop.JobArrived], b.Jobs[workshop.JobInProgress], b.Jobs[workshop.JobWaiting]
	j.Ready, j.Delivered, j.Cancelled = b.Jobs[workshop.JobReady], b.Jobs[workshop.JobDelivered], b.Jobs[workshop.JobCancelled]
	j.Total, j.Late = b.Jobs["total"], b.Jobs["late"]
	out.Bays.Items = make([]oapi.BoardBay, 0, len(b.Bays))
	for _, bay := range b.Bays {
		occupied := bay.StepID != nil
		out.Bays.Items = append(out.Bays.Items, oapi.BoardBay{Id: bay.ID, Name: bay.Name, Status: oapi.BoardBayStatus(bay.Status),
			Occupied: occupied, JobId: nullableOf(bay.JobID), StepId: nullableOf(bay.StepID)})
		out.Bays.Total++
		switch {
		case occupied:
			out.Bays.Occupied++
		case bay.Status == "maintenance":
			out.Bays.Maintenance++
		default:
			out.Bays.Free++
		}
	}
	return oapi.GetBoard200JSONResponse(out), nil
}
