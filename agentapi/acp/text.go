package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
)

// compactJSON returns raw without insignificant white space, or raw itself
// when it is not JSON.
func compactJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// excerpt shortens s for an error message.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// exitText says how the agent's process ended.
func exitText(ex proc.Execution) string {
	switch st := ex.State; {
	case st == nil:
		return "it did not start"
	case ex.Killed:
		return "wfrun killed it"
	default:
		if sig, ok := ex.Signal(); ok {
			return fmt.Sprintf("it was killed by signal %s", sig)
		}
		return fmt.Sprintf("it exited with status %d", st.ExitCode())
	}
}

// rpcText is the text of an error from the agent: a JSON-RPC error's
// message and data, or the error itself.
func rpcText(err error) string {
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	s := re.Message
	if re.Data != nil {
		if b, err := json.Marshal(re.Data); err == nil && string(b) != "null" {
			s += " " + string(b)
		}
	}
	return fmt.Sprintf("%s (JSON-RPC error %d)", s, re.Code)
}
