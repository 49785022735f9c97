//go:build linux

package nofollow

// SetWalk makes every call walk component by component, as on a kernel
// without openat2, and returns the function that undoes it.
func SetWalk() func() {
	noOpenat2.Store(true)
	return func() { noOpenat2.Store(false) }
}
