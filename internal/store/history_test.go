package store

import (
	"slices"
	"testing"
)

func TestStatusHistoryParsesAndOrders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text    string
		want    []StatusChange
		wantErr bool
	}{
		{text: "", want: nil},
		{text: "booked 10", want: []StatusChange{{Status: "booked", At: 10}}},
		{text: "waiting 30,booked 10,in_progress 20", want: []StatusChange{{Status: "booked", At: 10}, {Status: "in_progress", At: 20}, {Status: "waiting", At: 30}}},
		{text: "booked ten", wantErr: true},
	} {
		got, err := statusHistory(tc.text)
		if (err != nil) != tc.wantErr || !slices.Equal(got, tc.want) {
			t.Errorf("statusHistory(%q) = %v, %v; want %v, error %v", tc.text, got, err, tc.want, tc.wantErr)
		}
	}
}
