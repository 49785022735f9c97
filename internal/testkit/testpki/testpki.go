// Package testpki makes the certificates of tests that speak TLS: a
// certificate authority, a server's and a client's certificate it signed
// (for localhost and 127.0.0.1), and a second authority that signed
// nothing, for the test that a client trusting another one is refused.
// Test support only.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Write makes a certificate authority and certificates it signed, as PEM
// files in a folder: ca.pem, server.pem and server-key.pem (the layout of
// wfrun-temporal dev --tls DIR), client.pem and client-key.pem, and
// other-ca.pem, an authority that signed nothing; and returns the folder,
// which t removes.
func Write(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, typ string, der []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	authority := func(name string) (*x509.Certificate, *ecdsa.PrivateKey) {
		key := newKey()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		write(name+".pem", "CERTIFICATE", der)
		return cert, key
	}
	ca, caKey := authority("ca")
	authority("other-ca")
	leaf := func(name string, serial int64, usage []x509.ExtKeyUsage, hosts bool) {
		key := newKey()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage}
		if hosts {
			tmpl.DNSNames, tmpl.IPAddresses = []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		write(name+".pem", "CERTIFICATE", der)
		write(name+"-key.pem", "EC PRIVATE KEY", keyDER)
	}
	leaf("server", 2, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, true)
	leaf("client", 3, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, false)
	return dir
}
