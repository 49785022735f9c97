package ui_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/ui"
)

func TestCheckBindRefusesAnAddressOffThisMachineWithoutAToken(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7777", "", true},
		{"localhost:7777", "", true},
		{"[::1]:7777", "", true},
		{"127.0.0.1:0", "", true},
		{"0.0.0.0:7777", "", false},
		{":7777", "", false},
		{"192.168.1.4:7777", "", false},
		{"0.0.0.0:7777", "s3cret", true},
		{"7777", "", false},
	} {
		err := ui.CheckBind(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckBind(%q, token %v) = %v", c.addr, c.token != "", err)
		}
		if err != nil && !strings.Contains(err.Error(), "--") {
			t.Errorf("CheckBind(%q): %q does not say what to pass", c.addr, err)
		}
	}
}

func TestWithoutATokenOnlyLoopbackHostNamesAreAnswered(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	for _, c := range []struct {
		host string
		code int
	}{
		{"127.0.0.1:7777", http.StatusOK},
		{"localhost:7777", http.StatusOK},
		{"[::1]:7777", http.StatusOK},
		{"127.0.0.1", http.StatusOK},
		{"attacker.example:7777", http.StatusMisdirectedRequest},
		{"192.168.1.4:7777", http.StatusMisdirectedRequest},
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = c.host
		if a := r.do(req); a.code != c.code {
			t.Errorf("Host %s: %d, want %d", c.host, a.code, c.code)
		} else if c.code != http.StatusOK && !strings.Contains(a.body, "loopback") {
			t.Errorf("Host %s: the refusal does not say why:\n%s", c.host, a.body)
		}
	}
}

func TestWithATokenEveryRequestCarriesIt(t *testing.T) {
	const token = "s3cret-t0ken"
	r := newRig(t, ui.Config{AuthToken: token}, "")
	get := func(path string, prep func(*http.Request)) answer {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "wfrun.lan:7777" // any name: the token protects it
		if prep != nil {
			prep(req)
		}
		return r.do(req)
	}
	if a := get("/", nil); a.code != http.StatusUnauthorized || !strings.Contains(a.body, "?token=TOKEN") {
		t.Errorf("no token: %d\n%s", a.code, a.body)
	}
	if a := get("/", func(q *http.Request) { q.Header.Set("Authorization", "Bearer "+token) }); a.code != http.StatusOK {
		t.Errorf("the bearer token: %d", a.code)
	}
	if a := get("/", func(q *http.Request) { q.Header.Set("Authorization", "Bearer wrong") }); a.code != http.StatusUnauthorized {
		t.Errorf("a wrong bearer token: %d", a.code)
	}
	if a := get("/?token=wrong", nil); a.code != http.StatusUnauthorized {
		t.Errorf("a wrong login: %d", a.code)
	}
	// The login sets a cookie and sends the browser back without the token.
	login := get("/?status=failed&token="+url.QueryEscape(token), nil)
	if login.code != http.StatusSeeOther {
		t.Fatalf("the login: %d\n%s", login.code, login.body)
	}
	if loc := login.header.Get("Location"); strings.Contains(loc, "token") || !strings.Contains(loc, "status=failed") {
		t.Errorf("the login sends the browser to %q", loc)
	}
	resp := http.Response{Header: login.header}
	cookies := resp.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("the login's cookie: %+v", cookies)
	}
	if cookies[0].Value == token {
		t.Error("the cookie holds the token itself")
	}
	a := get("/", func(q *http.Request) { q.AddCookie(cookies[0]) })
	if a.code != http.StatusOK {
		t.Errorf("with the cookie: %d", a.code)
	}
	if strings.Contains(a.body, token) || strings.Contains(login.body, token) {
		t.Error("a page shows the token")
	}
	bad := *cookies[0]
	bad.Value = "forged"
	if a := get("/", func(q *http.Request) { q.AddCookie(&bad) }); a.code != http.StatusUnauthorized {
		t.Errorf("a forged cookie: %d", a.code)
	}
	// A verb without the token is refused before anything is looked up.
	post := httptest.NewRequest(http.MethodPost, "/runs/wf_0000000000000000/stop", nil)
	post.Host = "wfrun.lan:7777"
	if a := r.do(post); a.code != http.StatusUnauthorized {
		t.Errorf("a verb without the token: %d", a.code)
	}
}

func TestAVerbFromAPageOfAnotherOriginIsRefused(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	res := r.run(r.eng, `export const meta = { name: 'one', description: 'one agent' }
return await agent('Tell me.')`, "", 0)
	for _, c := range []struct {
		name    string
		headers map[string]string
		code    int
	}{
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://attacker.example"}, http.StatusForbidden},
		{"an older browser's cross-origin form", map[string]string{"Origin": "https://attacker.example"}, http.StatusForbidden},
		{"same-origin", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://127.0.0.1:7777"}, http.StatusOK},
		{"a program without browser headers", nil, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/runs/"+res.RunID+"/note", strings.NewReader("text=hello"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range c.headers {
				req.Header.Set(k, v)
			}
			a := r.do(req)
			if a.code != c.code {
				t.Fatalf("%d, want %d: %s", a.code, c.code, a.body)
			}
			if c.code == http.StatusForbidden && !strings.Contains(a.verb(t).Error, "another origin") {
				t.Errorf("the refusal does not say why: %s", a.body)
			}
		})
	}
	tl, _ := r.eng.Ledger().Timeline(context.Background(), res.RunID)
	notes := 0
	for _, ev := range tl {
		if ev.Kind == "follow_up" {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("%d notes on the timeline, want the 2 allowed ones", notes)
	}
}

func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	for _, path := range []string{"/", "/static/app.js", "/nothing"} {
		a := r.get(path)
		csp := a.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if a.header.Get("X-Content-Type-Options") != "nosniff" || a.header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: headers %v", path, a.header)
		}
	}
	if a := r.get("/static/app.js"); a.code != http.StatusOK || !strings.Contains(a.header.Get("Content-Type"), "javascript") {
		t.Errorf("the script: %d %s", a.code, a.header.Get("Content-Type"))
	}
}
