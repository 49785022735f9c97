package temporal_test

import (
	"strings"
	"testing"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

func TestTarget_ResolveFoldsTheAddressAndTheProfileIntoTheServer(t *testing.T) {
	for _, c := range []struct {
		name            string
		t               wftemporal.Target
		server, dialled string
		err             string
	}{
		{"nothing", wftemporal.Target{}, "", "", ""},
		{"--temporal", wftemporal.Target{Server: "h:1"}, "h:1", "h:1", ""},
		{"--address", wftemporal.Target{Connection: wftemporal.Connection{Address: "h:2"}}, "h:2", "h:2", ""},
		{"both, the same", wftemporal.Target{Server: "h:2", Connection: wftemporal.Connection{Address: "h:2"}}, "h:2", "h:2", ""},
		{"both, two servers", wftemporal.Target{Server: "h:1", Connection: wftemporal.Connection{Address: "h:2"}}, "", "", "--temporal h:1 and --address h:2 name two servers"},
		{"--profile alone", wftemporal.Target{Connection: wftemporal.Connection{Profile: "prod"}}, wftemporal.AddressFromConfig, "", ""},
		{"--config-file alone", wftemporal.Target{Connection: wftemporal.Connection{ConfigFile: "t.toml"}}, wftemporal.AddressFromConfig, "", ""},
		{"--temporal config", wftemporal.Target{Server: "config"}, wftemporal.AddressFromConfig, "", ""},
		{"--profile with --temporal", wftemporal.Target{Server: "h:1", Connection: wftemporal.Connection{Profile: "prod"}}, "h:1", "h:1", ""},
	} {
		tg := c.t
		err := tg.Resolve()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || tg.Server != c.server || tg.Conn().Address != c.dialled {
			t.Errorf("%s: server %q, dials %q (%v); want %q, %q", c.name, tg.Server, tg.Conn().Address, err, c.server, c.dialled)
		}
	}
}

func TestTarget_OpenPayloadsNamesTheFlag(t *testing.T) {
	_, err := wftemporal.Target{Payloads: "s3://?region=x"}.OpenPayloads()
	if err == nil || !strings.HasPrefix(err.Error(), "--payloads: the payload store") {
		t.Fatalf("err %v", err)
	}
	if _, _, err := (wftemporal.Target{Payloads: "s3://?region=x"}).Dial(); err == nil || !strings.HasPrefix(err.Error(), "--payloads:") {
		t.Fatalf("dial: %v", err)
	}
}
