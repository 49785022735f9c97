package ui

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/wfrun/wfrun/internal/loopback"
)

// cookieName is the cookie a token login sets.
const cookieName = "wfrun_ui"

// contentSecurity allows the embedded assets and nothing else: no inline
// script or style, no other origin, no framing.
const contentSecurity = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// CheckBind refuses an address that is not on a loopback interface
// (127.0.0.0/8, ::1, localhost) unless a token protects it.
func CheckBind(addr, token string) error {
	return loopback.CheckBind("--addr", DefaultAddr, addr, token)
}

// loopbackName reports whether a request's host name is one a browser
// sends only to this machine: a loopback one, or a name under .localhost,
// which browsers resolve to loopback themselves.
func loopbackName(host string) bool {
	return loopback.Host(host) || strings.HasSuffix(host, ".localhost")
}

// secure sets the headers every answer carries.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurity)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// guard lets a request through when it may see the ledger. Without a token
// the host name it was sent to must be a loopback one: a page that rebinds
// its own name to 127.0.0.1 reaches the port, but sends its own name. With
// a token the request must carry it; a GET with ?token=TOKEN is a login
// that sets the cookie and comes back without the token in its address.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := s.cfg.AuthToken
		if token == "" {
			host, _, err := net.SplitHostPort(r.Host)
			if err != nil {
				host = r.Host
			}
			if !loopbackName(strings.Trim(host, "[]")) {
				s.message(w, r, http.StatusMisdirectedRequest, "Not this host name",
					fmt.Sprintf("wfrun ui serves without a token, so it answers only to loopback names such as 127.0.0.1 or localhost, not to %q. Open it as http://127.0.0.1:PORT/, or start it with --auth-token.", r.Host))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if login := r.URL.Query().Get("token"); login != "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			if !sameSecret(login, token) {
				s.message(w, r, http.StatusUnauthorized, "Wrong token", "The token in the address is not the one wfrun ui was started with (--auth-token or WFRUN_AUTH_TOKEN).")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: cookieValue(token), Path: "/", HttpOnly: true,
				SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
			u := *r.URL
			q := u.Query()
			q.Del("token")
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && sameSecret(bearer, token) {
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && sameSecret(c.Value, cookieValue(token)) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="wfrun ui"`)
		s.message(w, r, http.StatusUnauthorized, "This page needs its token",
			"wfrun ui was started with a token. Open this address with ?token=TOKEN added once (the page then keeps a cookie), or send Authorization: Bearer TOKEN.")
	})
}

// cookieValue is what the cookie holds: derived from the token, so that the
// cookie jar does not keep the token itself.
func cookieValue(token string) string {
	sum := sha256.Sum256([]byte("wfrun ui session\x00" + token))
	return hex.EncodeToString(sum[:])
}

func sameSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
