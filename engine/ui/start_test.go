package ui_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/ui"
)

func TestStart_ServesThePageUntilTheContextIsDone(t *testing.T) {
	r := newPlainRig(t, ui.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, served, err := r.srv.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<html") {
		t.Fatalf("the page: %d %.200s", resp.StatusCode, body)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("the end of serving: %v", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, _, err := r.srv.Start(context.Background(), l.Addr().String()); err == nil || !strings.Contains(err.Error(), "--addr "+l.Addr().String()+": cannot listen") {
		t.Fatalf("a taken address: %v", err)
	}
}
