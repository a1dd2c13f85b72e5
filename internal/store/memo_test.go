package store

import "testing"

func TestMemoStaysWithinItsBound(t *testing.T) {
	t.Parallel()
	c := newMemo[int, int](3)
	for i := range 10 {
		c.put(i, i*i)
		if v, ok := c.get(i); !ok || v != i*i {
			t.Fatalf("get(%d) right after put = %d, %v; want %d", i, v, ok, i*i)
		}
	}
	if len(c.m) != 3 {
		t.Errorf("after 10 puts into a memo of 3: %d entries, want 3", len(c.m))
	}
	c.put(9, 0) // a key it holds: replaced, nothing evicted
	if v, _ := c.get(9); v != 0 || len(c.m) != 3 {
		t.Errorf("after replacing key 9: value %d, %d entries; want 0, 3", v, len(c.m))
	}
}
