package store_test

import (
	"slices"
	"testing"

	"github.com/workshop-platform/workshop/internal/store"
	"github.com/workshop-platform/workshop/internal/store/storetest"
	"github.com/workshop-platform/workshop/internal/workshop"
)

// An edit of the settings made from an old version is refused; one made
// from the current version moves it on.
func TestSettingsVersion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		e := newJobEnv(t, db)
		cur, err := e.st.Settings(t.Context(), e.loc.ID)
		if err != nil || cur.UpdatedAt == 0 {
			t.Fatalf("Settings = %+v, %v, want a version", cur, err)
		}
		next := cur
		next.BayBufferMinutes = 25
		e.tick()
		if err := e.st.SetSettings(t.Context(), e.loc.ID, next, store.IfUnchanged(cur.UpdatedAt)); err != nil {
			t.Fatal(err)
		}
		err = e.st.SetSettings(t.Context(), e.loc.ID, cur, store.IfUnchanged(cur.UpdatedAt))
		wantCode(t, err, workshop.CodeStaleUpdatedAt)
		got, err := e.st.Settings(t.Context(), e.loc.ID)
		if err != nil || got.BayBufferMinutes != 25 || got.UpdatedAt <= cur.UpdatedAt {
			t.Errorf("after the edit: %+v, %v; want the buffer 25 and a later version than %v", got, err, cur.UpdatedAt)
		}
	})
}

// Cancel reason tags are added, relabelled and retired; a retired tag
// cannot be given to a cancel but keeps its label for the jobs cancelled
// with it, and is reinstated when put again.
func TestCancelTagsRetire(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Database) {
		ctx := t.Context()
		e := newJobEnv(t, db)
		if _, err := e.st.SetCancelTags(ctx, e.loc.ID, []workshop.CancelTag{{Tag: "no_show", Label: "No show"}}); err != nil {
			t.Fatal(err)
		}
		if err := e.st.PutCancelTag(ctx, e.loc.ID, workshop.CancelTag{Tag: "parts", Label: "Parts missing"}); err != nil {
			t.Fatal(err)
		}
		if err := e.st.PutCancelTag(ctx, e.loc.ID, workshop.CancelTag{Tag: "no_show", Label: "Did not come"}); err != nil {
			t.Fatal(err)
		}
		early := e.createJob(t, e.loc.ID)
		if _, err := e.st.CancelJob(ctx, e.v, early.ID, []string{"parts"}, e.now()); err != nil {
			t.Fatal(err)
		}
		if err := e.st.RetireCancelTag(ctx, e.loc.ID, "parts"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, e.st.RetireCancelTag(ctx, e.loc.ID, "parts"), workshop.CodeNotFound)

		active, err := e.st.CancelTags(ctx, e.loc.ID)
		if want := []workshop.CancelTag{{Tag: "no_show", Label: "Did not come"}}; err != nil || !slices.Equal(active, want) {
			t.Errorf("CancelTags = %+v, %v, want %+v", active, err, want)
		}
		all, err := e.st.CancelTagsWithRetired(ctx, e.loc.ID)
		want := []workshop.CancelTag{{Tag: "no_show", Label: "Did not come"}, {Tag: "parts", Label: "Parts missing", Retired: true}}
		if err != nil || !slices.Equal(all, want) {
			t.Errorf("CancelTagsWithRetired = %+v, %v, want %+v", all, err, want)
		}
		_, err = e.st.CancelJob(ctx, e.v, e.createJob(t, e.loc.ID).ID, []string{"parts"}, e.now())
		wantInvalid(t, err, "reasonTags")
		if got := e.job(t, early.ID); !slices.Equal(got.CancelReasons, []string{"parts"}) {
			t.Errorf("the job cancelled with the retired tag has %v, want [parts]", got.CancelReasons)
		}

		if err := e.st.PutCancelTag(ctx, e.loc.ID, workshop.CancelTag{Tag: "parts", Label: "Parts back"}); err != nil {
			t.Fatal(err)
		}
		active, err = e.st.CancelTags(ctx, e.loc.ID)
		if want := []workshop.CancelTag{{Tag: "no_show", Label: "Did not come"}, {Tag: "parts", Label: "Parts back"}}; err != nil || !slices.Equal(active, want) {
			t.Errorf("after reinstating: %+v, %v, want %+v", active, err, want)
		}
	})
}
