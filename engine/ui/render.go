package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/wfrun/wfrun/internal/human"
)

// funcs are the templates' helpers: numbers and times the way `wfrun runs`
// prints them.
var funcs = template.FuncMap{
	"tokens":   human.Count,
	"cost":     func(usd float64) string { return fmt.Sprintf("$%.4f", usd) },
	"age":      human.Age,
	"duration": duration,
	"durp": func(d *time.Duration) string {
		if d == nil {
			return "-"
		}
		return duration(*d)
	},
	"clock":   func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
	"iso":     func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"percent": func(p float64) string { return strconv.FormatFloat(p, 'f', 3, 64) + "%" },
	"add":     func(a, b int) int { return a + b },
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
}

// render executes the template name of page into a buffer first, so that
// a failing template gives a clean 500 rather than half a page.
func (s *Server) render(w http.ResponseWriter, code int, page, name string, data any) {
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "the page cannot be rendered: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

type messageView struct {
	Title, Text string
}

// message renders a page that says one thing: a 404, a refused login.
func (s *Server) message(w http.ResponseWriter, r *http.Request, code int, title, text string) {
	s.render(w, code, "message", "layout", messageView{Title: title, Text: text})
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.message(w, r, http.StatusNotFound, "Not found", "wfrun ui has no page at "+quote(r.URL.Path)+". The list of runs is at /.")
}

// duration renders a span to a tenth of a second below a minute, to the
// second above.
func duration(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// quote quotes what a request said, cut to a length a sentence can hold.
func quote(s string) string {
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80]) + "…"
	}
	return strconv.Quote(s)
}
