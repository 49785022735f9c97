package memo

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

func TestGetBuildsEachKeyOnceUnderConcurrentCalls(t *testing.T) {
	var (
		c      Map[string]
		builds atomic.Int64
		wg     sync.WaitGroup
	)
	for i := range 8 {
		wg.Go(func() {
			key := "k" + strconv.Itoa(i%2)
			for range 50 {
				v, err := c.Get(key, func(k string) (string, error) {
					builds.Add(1)
					return "value of " + k, nil
				})
				if err != nil || v != "value of "+key {
					t.Errorf("Get(%q) = %q, %v", key, v, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 2 {
		t.Errorf("build ran %d times for 2 keys", n)
	}
	if n := c.Len(); n != 2 {
		t.Errorf("Len = %d after racing calls for 2 keys", n)
	}
}

func TestGetKeepsAnErrorLikeAValue(t *testing.T) {
	var c Map[int]
	boom := errors.New("boom")
	builds := 0
	for range 3 {
		_, err := c.Get("bad", func(string) (int, error) { builds++; return 0, boom })
		if !errors.Is(err, boom) {
			t.Fatalf("Get = %v, want the build's error", err)
		}
	}
	if builds != 1 {
		t.Errorf("a failing build ran %d times, want once", builds)
	}
}

func TestGetFindingItsKeyDoesNotAllocate(t *testing.T) {
	var c Map[int]
	c.Get("7", strconv.Atoi)
	if n := testing.AllocsPerRun(100, func() { c.Get("7", strconv.Atoi) }); n > 0 {
		t.Errorf("Get of a known key allocates %v times", n)
	}
}

func TestMapStartsOverPastMax(t *testing.T) {
	var c Map[int]
	for i := range Max + 10 {
		if v, _ := c.Get(strconv.Itoa(i), strconv.Atoi); v != i {
			t.Fatalf("Get(%d) = %d", i, v)
		}
	}
	if n := c.Len(); n != 10 {
		t.Errorf("Len = %d after %d keys, want 10 (started over at %d)", n, Max+10, Max)
	}
	held := 0
	c.m.Range(func(_, _ any) bool { held++; return true })
	if held != 10 {
		t.Errorf("the map holds %d keys, want 10", held)
	}
	rebuilt := false
	c.Get("0", func(string) (int, error) { rebuilt = true; return 0, nil })
	if !rebuilt {
		t.Error("a key forgotten when the map started over was not built again")
	}
}
