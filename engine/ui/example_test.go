package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ui"
)

// The page over a runs folder: an engine that keeps runs, the Server, and
// its Handler (Serve serves it on a listener until its context is done).
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "wfrun-ui-example")
	defer os.RemoveAll(dir)
	eng, err := engine.New(engine.Config{RunsDir: filepath.Join(dir, "runs")})
	if err != nil {
		panic(err)
	}
	defer eng.Close(context.Background())
	eng.Run(context.Background(), engine.WorkflowStartRequest{Parent: "example", Script: `export const meta = { name: 'hello', description: 'one agent' }
return await agent('Say hello.')`})

	srv, err := ui.New(ui.Config{Engine: eng})
	if err != nil {
		panic(err)
	}
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7777/", nil)
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, req)
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	// Output: 200 text/html; charset=utf-8
}
