package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

type todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
	ID         string `json:"id" tools:"hidden"`
	Priority   string `json:"priority" tools:"hidden"`
}

type todoArgs struct {
	Todos []todo `json:"todos"`
}

// maxTodos bounds one child's list.
const maxTodos = 100

// todoWrite replaces the child's task list and shows it back. The list
// lives as long as the child; nothing outside it reads it.
func (s *Set) todoWrite(ctx context.Context, a todoArgs) (string, error) {
	if a.Todos == nil {
		return "", errors.New("TodoWrite needs todos: the whole list, each with content and status (pending, in_progress or completed)")
	}
	if len(a.Todos) > maxTodos {
		return "", fmt.Errorf("the list has %d items, more than %d: keep it short", len(a.Todos), maxTodos)
	}
	var b strings.Builder
	for i, t := range a.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return "", fmt.Errorf("todo %d has no content", i+1)
		}
		mark := ""
		switch t.Status {
		case "pending":
			mark = "[ ]"
		case "in_progress":
			mark = "[~]"
		case "completed":
			mark = "[x]"
		default:
			return "", fmt.Errorf("todo %d has the status %q: use pending, in_progress or completed", i+1, t.Status)
		}
		fmt.Fprintf(&b, "%s %s\n", mark, cutRunes(t.Content, 500))
	}
	s.mu.Lock()
	s.todos = append(s.todos[:0], a.Todos...)
	s.mu.Unlock()
	if len(a.Todos) == 0 {
		return "The todo list is now empty.", nil
	}
	return "The todo list is now:\n" + strings.TrimSuffix(b.String(), "\n"), nil
}
