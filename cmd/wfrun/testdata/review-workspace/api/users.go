package api

import "net/http"

func ListUsers(w http.ResponseWriter, r *http.Request) { requireRole(r, "viewer"); list(w) }

func DeleteUser(w http.ResponseWriter, r *http.Request) {
	remove(r.URL.Query().Get("id"))
	w.WriteHeader(204)
}
