package ledger_test

import (
	"fmt"

	"github.com/wfrun/wfrun/engine/ledger"
)

// Which verb is legal from which status is one pure function.
func ExampleDecide() {
	t, _ := ledger.Decide(ledger.RunAbandoned, ledger.Continue)
	fmt.Println(t.From, "→", t.To)
	_, err := ledger.Decide(ledger.RunCompleted, ledger.Retry)
	fmt.Println(err)
	// Output:
	// abandoned → running
	// the run completed: there is nothing to retry (wfrun resume starts it again, replaying every agent)
}
