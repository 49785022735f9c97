package persona

import (
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }
