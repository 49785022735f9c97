package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
)

// This file is the one layer that retries. go-openai has no retries of its
// own; the http.Client is used as given (its Transport does not retry POSTs).

// gate holds back every request of a Provider after a 429: the endpoint's
// rate limit is shared by all children, so one child's 429 pauses them all.
type gate struct {
	mu        sync.Mutex
	notBefore time.Time
}

// pause makes every request wait until t (or a later time already set).
func (g *gate) pause(t time.Time) {
	g.mu.Lock()
	if t.After(g.notBefore) {
		g.notBefore = t
	}
	g.mu.Unlock()
}

// wait returns when the gate is open, or ctx's error when ctx ends first.
// It loops because another child may extend the pause while it waits.
func (g *gate) wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		d := time.Until(g.notBefore)
		g.mu.Unlock()
		if d <= 0 {
			return ctx.Err()
		}
		if err := agentapi.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// backoff is the delay before retry number n (0-based): base·2ⁿ capped at
// maxRetryDelay, with jitter in its upper half so that siblings spread out.
func backoff(base time.Duration, n int) time.Duration {
	d := base
	for i := 0; i < n && d < maxRetryDelay; i++ {
		d *= 2
	}
	d = min(d, maxRetryDelay)
	half := d / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
// It returns 0 when the header is absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		d = time.Duration(secs * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// exchange records what happened to one HTTP attempt, which go-openai's
// errors do not say: whether a request was sent and the response headers.
type exchange struct {
	sent       bool
	status     int
	retryAfter string
}

type exchangeKey struct{}

// recordingDoer is the HTTPDoer given to go-openai: it fills in the
// exchange found in the request's context, and sends the trace context of
// the request's span along.
type recordingDoer struct{ c *http.Client }

func (d recordingDoer) Do(req *http.Request) (*http.Response, error) {
	x, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if x != nil {
		x.sent = true
	}
	injectTraceContext(req)
	resp, err := d.c.Do(req)
	if x != nil && resp != nil {
		x.status = resp.StatusCode
		x.retryAfter = resp.Header.Get("Retry-After")
	}
	return resp, err
}

// callError is a turn that could not get an answer from the endpoint.
type callError struct {
	kind       agentapi.FailureKind
	status     int           // HTTP status, 0 when there was no response
	retry      bool          // worth another attempt
	retryAfter time.Duration // the server's Retry-After, 0 if none
	msg        string        // a sentence for the child's Error
	fatal      *wferr.Error  // the provider is misconfigured: Run returns it
	err        error
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.err }

// complete sends one chat completion request, retrying what is worth
// retrying. ctx is the child's context. The error is a *callError, or an
// *abortedError wrapping ctx's error when ctx ended.
func (p *Provider) complete(ctx context.Context, creq goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, error) {
	var prev *callError
	sent := false
	for attempt := 0; ; attempt++ {
		if err := p.gate.wait(ctx); err != nil {
			return goopenai.ChatCompletionResponse{}, abort(err, sent)
		}
		resp, x, err := p.attempt(ctx, creq)
		sent = sent || x.sent
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, abort(ctx.Err(), sent)
		}
		var ce *callError
		if !errors.As(err, &ce) {
			return resp, err
		}
		if ce.retry && sameAnswer(prev, ce) {
			ce.retry = false
			ce.msg += " (the same answer to the same request twice: not retried further)"
		}
		prev = ce
		if !ce.retry || attempt >= p.cfg.MaxRetries {
			if ce.retry {
				ce.msg = fmt.Sprintf("%s (gave up after %d retries)", ce.msg, attempt)
			}
			return resp, ce
		}
		delay := backoff(p.cfg.RetryBaseDelay, attempt)
		if ce.retryAfter > 0 {
			delay = ce.retryAfter
		}
		if ce.status == http.StatusTooManyRequests {
			p.gate.pause(time.Now().Add(delay))
			continue // the gate does the waiting, for every child
		}
		if err := agentapi.Sleep(ctx, delay); err != nil {
			return resp, abort(err, sent)
		}
	}
}

// sameAnswer reports whether a server error is deterministic: the endpoint
// answered the same request twice in a row with the same 500 or 501 and
// the same message. A server that cannot parse what it was sent (llama.cpp
// answers 500 to a history it cannot read) would answer every retry alike,
// so retrying only delays the child's failure. Gateway errors (502-504) are
// left to the retries: their sameness says nothing.
func sameAnswer(prev, ce *callError) bool {
	if prev == nil || (ce.status != http.StatusInternalServerError && ce.status != http.StatusNotImplemented) {
		return false
	}
	return prev.status == ce.status && prev.msg == ce.msg
}

// abortedError is a request that ended with its child's context. sent
// says that at least one attempt reached the endpoint, which then worked
// on a prompt it never reported: the conversation estimates its tokens.
type abortedError struct {
	err  error
	sent bool
}

func (e *abortedError) Error() string { return e.err.Error() }
func (e *abortedError) Unwrap() error { return e.err }

func abort(err error, sent bool) error { return &abortedError{err: err, sent: sent} }

// attempt sends the request once, bounded by RequestTimeout.
// It returns what it learnt of the exchange too: whether it was sent.
func (p *Provider) attempt(ctx context.Context, creq goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, *exchange, error) {
	actx := ctx
	if p.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, p.cfg.RequestTimeout)
		defer cancel()
	}
	x := &exchange{}
	actx = context.WithValue(actx, exchangeKey{}, x)
	resp, err := p.client.CreateChatCompletion(actx, creq)
	if err == nil {
		return resp, x, nil
	}
	if ctx.Err() != nil {
		return resp, x, ctx.Err()
	}
	return resp, x, p.classify(err, x, actx.Err() != nil)
}

// classify turns a failed attempt into a callError. attemptTimedOut says
// that the attempt's own RequestTimeout passed.
func (p *Provider) classify(err error, x *exchange, attemptTimedOut bool) *callError {
	ce := &callError{err: err, status: x.status, retryAfter: parseRetryAfter(x.retryAfter, time.Now())}
	if !x.sent {
		ce.kind = agentapi.FailureTaskFailed
		ce.msg = fmt.Sprintf("the request was refused before it was sent: %v", err)
		return ce
	}
	if attemptTimedOut {
		ce.kind, ce.retry = agentapi.FailureTimeout, true
		ce.msg = fmt.Sprintf("%s did not answer within the request timeout of %s", p.cfg.BaseURL, p.cfg.RequestTimeout)
		return ce
	}
	if x.status == 0 {
		return p.classifyNetwork(ce, err)
	}
	text := apiMessage(err)
	ce.msg = fmt.Sprintf("%s answered %d: %s", p.cfg.BaseURL, x.status, text)
	switch {
	case x.status == http.StatusUnauthorized || x.status == http.StatusForbidden:
		ce.fatal = p.authError(x.status, text, err)
	case x.status == http.StatusTooManyRequests:
		ce.kind, ce.retry = agentapi.FailureRateLimited, true
	case x.status == http.StatusRequestTimeout:
		ce.kind, ce.retry = agentapi.FailureTimeout, true
	case x.status >= 500:
		ce.kind, ce.retry = agentapi.FailureUpstreamUnavailable, true
	case isContextLength(err, text):
		ce.kind = agentapi.FailureContextLength
	default:
		ce.kind = agentapi.FailureTaskFailed
	}
	return ce
}

// classifyNetwork classifies an attempt that got no HTTP response.
func (p *Provider) classifyNetwork(ce *callError, err error) *callError {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		ce.kind = agentapi.FailureUpstreamUnavailable
		ce.msg = fmt.Sprintf("nothing is listening at %s (connection refused): start the server or fix OPENAI_BASE_URL / --base-url", p.cfg.BaseURL)
	case errors.As(err, &dns):
		ce.kind = agentapi.FailureUpstreamUnavailable
		ce.retry = dns.IsTemporary || dns.IsTimeout
		ce.msg = fmt.Sprintf("the host of %s cannot be resolved (%v): fix OPENAI_BASE_URL / --base-url", p.cfg.BaseURL, dns)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		ce.kind, ce.retry = agentapi.FailureUpstreamUnavailable, true
		ce.msg = fmt.Sprintf("the connection to %s broke: %v", p.cfg.BaseURL, err)
	default:
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			ce.kind, ce.retry = agentapi.FailureTimeout, true
			ce.msg = fmt.Sprintf("the request to %s timed out: %v", p.cfg.BaseURL, err)
			return ce
		}
		ce.kind = agentapi.FailureUpstreamUnavailable
		ce.msg = fmt.Sprintf("the request to %s failed: %v", p.cfg.BaseURL, err)
	}
	return ce
}

// authError is the error Run returns for a 401 or 403: every child would
// fail the same way, so the run should fail at once with AGENT_START.
func (p *Provider) authError(status int, text string, err error) *wferr.Error {
	var hint string
	switch {
	case p.cfg.APIKey == "":
		hint = "set OPENAI_API_KEY to a key for this endpoint, or fix OPENAI_BASE_URL / --base-url if it names the wrong server"
	case status == http.StatusForbidden:
		hint = "check that OPENAI_API_KEY may use this model, and that OPENAI_BASE_URL / --base-url is the endpoint the key belongs to"
	default:
		hint = "check OPENAI_API_KEY, and that OPENAI_BASE_URL / --base-url is the endpoint the key belongs to"
	}
	return wferr.Wrap(wferr.AgentStart, err, "the openai provider is not authorised at %s (%d: %s): %s", p.cfg.BaseURL, status, text, hint)
}

// apiMessage is the server's own message from a go-openai error.
func apiMessage(err error) string {
	var api *goopenai.APIError
	if errors.As(err, &api) && api.Message != "" {
		return api.Message
	}
	var re *goopenai.RequestError
	if errors.As(err, &re) {
		body := strings.TrimSpace(string(re.Body))
		if len(body) > 300 {
			body = body[:300] + "…"
		}
		if body != "" {
			return body
		}
		return re.HTTPStatus
	}
	return err.Error()
}

// isContextLength reports whether a 4xx says the conversation is too long.
// Servers say it in their own words; contextLengthSigns has those of the
// endpoints wfrun is tested against (quirks_test.go holds their real
// bodies).
func isContextLength(err error, text string) bool {
	var api *goopenai.APIError
	if errors.As(err, &api) {
		if code, ok := api.Code.(string); ok && code == "context_length_exceeded" {
			return true
		}
		if api.Type == "exceed_context_size_error" { // llama.cpp's llama-server
			return true
		}
	}
	t := strings.ToLower(text)
	for _, sign := range contextLengthSigns {
		if strings.Contains(t, sign) {
			return true
		}
	}
	return false
}

// contextLengthSigns are lower-case phrases that only a context-length
// refusal contains.
var contextLengthSigns = []string{
	"context_length_exceeded",              // OpenAI's code, also in bodies that lost their structure
	"maximum context length",               // OpenAI, vLLM, DeepSeek, Mistral, Groq
	"context length",                       // Ollama, LM Studio
	"context window",                       // several gateways
	"exceed_context_size_error",            // llama.cpp's type, in a body go-openai could not parse
	"context size",                         // llama.cpp: "exceeds the available context size"
	"prompt is too long",                   // Anthropic's compatibility endpoint
	"`inputs` tokens + `max_new_tokens`",   // Hugging Face TGI
	"exceeds the maximum number of tokens", // Gemini's compatibility endpoint
}

// mentionsResponseFormat reports whether a 400 refuses response_format, the
// sign that an endpoint does not support structured output that way.
func mentionsResponseFormat(ce *callError) bool {
	if ce.status != http.StatusBadRequest && ce.status != http.StatusUnprocessableEntity {
		return false
	}
	t := strings.ToLower(ce.msg)
	return strings.Contains(t, "response_format") || strings.Contains(t, "json_schema")
}

// mentionsToolChoice reports whether a 400 or 422 refuses the tool_choice
// (llama-server: "Wrong type supplied for parameter 'tool_choice'").
func mentionsToolChoice(ce *callError) bool {
	if ce.status != http.StatusBadRequest && ce.status != http.StatusUnprocessableEntity {
		return false
	}
	return strings.Contains(strings.ToLower(ce.msg), "tool_choice")
}

// mentionsEffort reports whether a 400 or 422 refuses the reasoning_effort
// (a model without reasoning, or a level it does not know).
func mentionsEffort(ce *callError) bool {
	if ce.status != http.StatusBadRequest && ce.status != http.StatusUnprocessableEntity {
		return false
	}
	return strings.Contains(strings.ToLower(ce.msg), "effort") // reasoning_effort, reasoning.effort, "reasoning effort"
}
