// Package openai is wfrun's provider for OpenAI-compatible chat completion
// endpoints (OpenAI, DeepSeek, vLLM, llama.cpp's server, Ollama, LM Studio,
// OpenRouter, …), registered as "openai". It talks to them through
// github.com/sashabaranov/go-openai.
//
// # One conversation per child
//
// Every Run is a fresh conversation that shares nothing with the parent or
// with its siblings: a system prompt (a worker persona: the final message is
// the return value, never ask questions back, be concise), the request's
// prompt as the user message, its own message history, its own turn limit
// (Request.MaxTurns, else the persona's maxTurns, else Config.MaxTurns,
// default 20) and its own usage.
//
// A turn sends the conversation with the child's tools. When the reply
// calls tools, the calls of that turn run concurrently and their results
// (a failing tool's error text included) go back as tool messages; the
// next turn follows. A reply without tool calls is the answer. When the
// turn limit is reached, one last turn without tools asks for the best
// final answer: the child completes with the Note "max_turns reached", or
// fails with max_turns if it still gives nothing usable.
//
// Tools come from the provider's tool sources (today Config.Toolbox, for
// example the MCP servers of a config file), listed at the start of every
// Run. persona.NarrowTools decides which of them a child gets: the
// persona's tools, minus its disallowedTools, then the request's Tools. It
// never widens: a name no source has is simply not available, and a call
// to a tool the child was not given is answered with an error the model
// sees.
//
// # Personas, models and effort
//
// Request.Persona (agentType) names a persona of Config.Personas (nil: the
// built-ins general-purpose, Explore and Plan). Its body is the system
// prompt, under the worker framing above; a persona tool the child cannot
// have is dropped with a note. An unknown name makes Run return an
// UNSUPPORTED_OPTION error; Personas exposes the set so that the run side
// can refuse the name before it starts the child. The call's own model,
// effort and maxTurns win over the persona's, which win over the run's
// defaults (Request.ModelDefaulted tells them apart). The model then goes
// through Config.Models (agentapi/modelmap): an alias the map does not
// name falls back to Config.Model with a note, except on Anthropic's
// endpoint. The effort is sent as reasoning_effort; an endpoint that
// answers 400 naming the effort is asked again with a lower one (xhigh
// becomes high) or none, with a note, and the provider remembers the
// refusal for that model.
//
// # The context window
//
// Each conversation's size is estimated against the model's context
// window (the model map's contextWindow, else the model family's published
// window, else modelmap.FallbackContextWindow). Before a request would
// exceed it (less a reserve for the answer), the oldest tool results
// become one-line stubs and, if need be, the latest are cut; the task and
// the latest turn stay, and the note says what was elided. If the endpoint
// still refuses the conversation as too long, one last turn without tools
// asks for the final answer on a history whose every tool result is a
// stub; only when that is refused too does the child fail with
// context_length.
//
// # Structured output
//
// A request with a Schema asks for JSON. By default (JSONSchemaMode auto)
// the request carries response_format json_schema (name "answer", not
// strict); an endpoint that answers 400 naming response_format is asked
// again, and from then on, through a forced tool final_answer whose
// parameters are the schema. The tool_choice names final_answer when it is
// the only tool; an endpoint that refuses that (400) or ignores it (the
// reply has no call: llama-server reads it as "auto") gets "required" from
// then on, on every child. The schema is also written into the system
// prompt. An answer is validated with agentapi/schema; a mismatch goes back
// to the model with the validation error, up to SchemaRetries times
// (default 3, so at most four answers), after which the child fails with
// invalid_output. The JSON answer is Result.Output.
//
// # Retries, the 429 gate and failure kinds
//
// Exactly one layer retries: this package (go-openai has no retries of its
// own). A 429, a 5xx, a broken connection or a timed-out attempt
// (RequestTimeout) is retried up to MaxRetries times with exponential
// backoff and jitter, or after the server's Retry-After (seconds or an HTTP
// date). A 429 closes the Provider's gate: every child of this Provider
// waits until the Retry-After has passed before its next request, because
// they all share the endpoint's rate limit. 400 and 422 are not retried.
//
// A 401 or 403 means the provider is misconfigured: Run returns an
// AGENT_START error naming the variable to set (OPENAI_API_KEY,
// OPENAI_BASE_URL / --base-url), so that the run fails at once instead of
// failing every child. Every other failure is a Result whose Failure is one
// of: upstream_unavailable (connection refused, DNS, 5xx after retries),
// rate_limited (429 after retries), context_length (a 400 saying the
// conversation is too long, again after the trimmed retry), timeout (the child's deadline, or every
// attempt exceeded RequestTimeout: status timed_out), cancelled (the
// context was cancelled; the HTTP request in flight is aborted at once),
// invalid_output, max_turns and task_failed (any other refusal).
//
// # Usage and cost
//
// Prompt, completion and cached prompt tokens are summed over the turns.
// CostUSD uses Config.Prices (USD per million tokens; DefaultPrices when
// nil, LoadPrices reads a price file). A model without a price costs 0 and
// the Result's Note says "no price for model X".
//
// # Transcripts
//
// With Config.TranscriptDir set, each child's conversation is written to
// DIR/AGENTID.jsonl: the messages, tool calls, tool results, per-turn usage
// and the outcome, one JSON object per line.
//
// # Continued children
//
// The Provider is also agentapi.Conversational (converse.go): Converse
// sets up a child whose conversation outlives one answer, and each Turn
// adds the parent's next message and runs the loop above until the next
// answer, with its own turn limit, schema retries and usage. A turn that
// is cancelled leaves what it added in the history. Snapshot saves the
// messages and the loop's state as versioned JSON, and Converse with that
// history resumes the child in another process, in the worktree it had.
// A continued child gets the host's tools for it (its own sub-agent
// tools) as one more tool source, narrowed like the others; its
// transcript is transcript.jsonl in its own folder, appended to across
// turns and processes. The capability depthLimit is true: a child has no
// tools but those it is given, so it cannot start agents the host does
// not count.
//
// # Not yet
//
// Isolation needs Config.Workspace: without it Capabilities reports it
// false, so the run refuses that option with UNSUPPORTED_OPTION. Responses
// are not streamed.
//
// # Concurrency
//
// A Provider is safe for concurrent use; it starts no goroutines of its
// own except the tool calls of one turn, which Run waits for before it
// goes on. Run honours its context throughout: waiting at the gate, backing
// off, in the HTTP request and in tool calls.
package openai
