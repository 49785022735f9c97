package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/human"
)

// The continuable sub-agents over MCP. Each child is a resource,
// wfrun://subagents/<childId> (its entry and turns, application/json),
// readable and subscribable only by sessions of its owner. When one of
// its turns ends, the server tells the parent twice over, so that every
// client hears it one way or the other:
//
//   - a resource-updated notification on the child's URI, to the sessions
//     subscribed to it;
//   - a logging message (logger "wfrun.subagents", level info for a
//     completed turn and warning otherwise, data: the report with a
//     one-line "message") to every session of the owner that has set a
//     logging level, for the owner's own children.

// subagentTemplate is the URI template of a child's resource.
const subagentTemplate = "wfrun://subagents/{childId}"

// subagentLogger names the logging messages of the reports.
const subagentLogger = "wfrun.subagents"

// notifyTimeout bounds one notification to one session.
const notifyTimeout = 5 * time.Second

// subagentOptions adds what the sub-agents need to the SDK's options:
// logging, for the reports, and resource subscriptions.
func (s *Server) subagentOptions(so *mcp.ServerOptions) {
	so.Capabilities.Logging = &mcp.LoggingCapabilities{}
	so.SubscribeHandler = func(_ context.Context, req *mcp.SubscribeRequest) error {
		id, ok := childOf(req.Params.URI)
		if !ok {
			return mcp.ResourceNotFoundError(req.Params.URI)
		}
		if _, ok := s.set(req.Session).Subagent(id); !ok {
			return mcp.ResourceNotFoundError(req.Params.URI)
		}
		return nil
	}
	so.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
}

// addSubagents registers the resource template and the watcher that
// turns reports into notifications. The watcher lives as long as the
// manager.
func (s *Server) addSubagents() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "subagent",
		Title:       "A continuable sub-agent",
		Description: "One of this session's sub-agents: its status, lineage, usage, last report and every turn (message, status, answer). It is updated whenever one of its turns ends.",
		MIMEType:    "application/json",
		URITemplate: subagentTemplate,
	}, s.readSubagent)
	s.opts.Subagents.Watch(s.notify)
}

// childOf is the child id of a sub-agent URI.
func childOf(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, "wfrun://subagents/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}

// readSubagent serves wfrun://subagents/<childId> to its owner's sessions.
func (s *Server) readSubagent(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := childOf(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	res, ok := s.set(req.Session).Subagent(id)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}

// reportMessage is the data of a report's logging message.
type reportMessage struct {
	Message  string `json:"message"`
	Resource string `json:"resource"`
	subagent.Report
}

// notify sends a report to the parent: resource-updated to the
// subscribers of the child's URI, a logging message to the owner's
// sessions (for the owner's own children; a child's children report to
// it through its tools).
func (s *Server) notify(r subagent.Report) {
	uri := tool.SubagentURI(r.ChildID)
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	_ = s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	if r.Parent != "" {
		return
	}
	level := mcp.LoggingLevel("info")
	if r.Status != ledger.TurnCompleted {
		level = "warning"
	}
	line := fmt.Sprintf("sub-agent %s: turn %d %s", r.ChildID, r.Turn, r.Status)
	switch {
	case r.Report != "":
		line += ": " + human.FirstLine(r.Report, 200)
	case r.Error != "":
		line += ": " + human.FirstLine(r.Error, 200)
	}
	params := &mcp.LoggingMessageParams{Level: level, Logger: subagentLogger, Data: reportMessage{Message: line, Resource: uri, Report: r}}
	s.mu.Lock()
	var targets []*mcp.ServerSession
	for ss, sess := range s.sessions {
		if sess.set.Owner() == r.Owner {
			targets = append(targets, ss)
		}
	}
	s.mu.Unlock()
	for _, ss := range targets {
		_ = ss.Log(ctx, params)
	}
}
