//go:build linux && !amd64 && !arm64

package workspace

// The seccomp filter knows only amd64 and arm64; elsewhere the
// Landlock-only sandbox has none.
const (
	seccompArch = 0
	seccompX32  = false
)

var seccompLegacyMetadata []uintptr
