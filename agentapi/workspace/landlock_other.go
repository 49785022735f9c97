//go:build !linux

package workspace

import "errors"

var errNotLinux = errors.New("Landlock is a feature of Linux, and this is not Linux")

func landlockABI() (int, error) { return 0, errNotLinux }

func restrictSelf(pol policy) error { return landlockRefusal(pol.Mode, pol.Network, 0, errNotLinux) }

func installSeccomp(bool) error { return nil }
