package loadbound_test

import (
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func TestTaken_TheBoundStretchesWithTheLoadAndNeverShrinks(t *testing.T) {
	for _, tc := range []struct {
		taken loadbound.Taken
		bound time.Duration
		over  bool
	}{
		{loadbound.Taken{Wall: 4 * time.Second, Load: 1}, 5 * time.Second, false},
		{loadbound.Taken{Wall: 6 * time.Second, Load: 1}, 5 * time.Second, true},
		{loadbound.Taken{Wall: 12 * time.Second, Load: 2.5}, 5 * time.Second, false},
		{loadbound.Taken{Wall: 13 * time.Second, Load: 2.5}, 5 * time.Second, true},
	} {
		if got := tc.taken.Over(tc.bound); got != tc.over {
			t.Errorf("%v against %v: over %v, want %v", tc.taken, tc.bound, got, tc.over)
		}
	}
}

func TestTimer_MeasuresWallCPUAndALoadOfAtLeastOne(t *testing.T) {
	w := loadbound.Start(t)
	deadline := time.Now().Add(120 * time.Millisecond)
	for time.Now().Before(deadline) { // burn some CPU
	}
	m := w.Stop()
	if m.Wall < 120*time.Millisecond || m.CPU <= 0 || m.Load < 1 {
		t.Fatalf("measured %v", m)
	}
	if again := w.Stop(); again != m {
		t.Fatalf("a second Stop measured %v, the first %v", again, m)
	}
	t.Logf("measured %v", m)
}
