// Package hostile holds no code, only the test that runs the catalogue of
// hostile scripts under testdata/hostile: scripts that loop, allocate
// without bound, recurse, flood logs, return monsters, throw what cannot be
// shown, pollute the builtins or wait for what never comes. Each file says
// in its header what it does, the error code its run must end with and the
// time within which it must end on an idle machine: three times that under
// the race detector, which runs goja several times slower, and stretched
// by the machine's load while it ran (internal/testkit/loadbound), so that the
// catalogue passes beside other work and a script that overruns on an idle
// machine is still caught. The test runs each one beside 50 ordinary
// runs in the same engine, all of which must complete, and checks that no
// goroutine is left behind. With WFRUN_TEST_ISOLATE=process every run is
// isolated (docs/script-api.md, "Memory"; docs/architecture.md).
package hostile
