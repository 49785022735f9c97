// Package s3server pins the S3-compatible server that the payload store's
// end-to-end tests start on loopback: versitygw (github.com/versity/versitygw)
// with its posix backend, a real S3 protocol implementation over a folder.
// It is a module of its own, like engine/temporal/server, so that the
// server's dependencies never enter wfrun's module; the go.mod's tool
// directive names the program:
//
//	cd engine/temporal/s3server && go build -o /tmp/wfrun-s3 github.com/versity/versitygw/cmd/versitygw
//
// and WFRUN_S3_SERVER=/tmp/wfrun-s3 lets the tests run it. This package
// has no code and must never have any: wfrun does not serve S3.
package s3server
