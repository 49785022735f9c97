// Package parent is wfrun's own parent agent: a model on the openai
// provider whose only tools are engine/tool's workflow, agent and
// sub-agent tools, given one task and answering it (`wfrun agent`). An
// embedder gets the same agent, prompt and tools as the command line.
//
// # The model
//
// New binds a tool set (engine/tool) to an engine and an owner (Owner,
// unless Config.Tools says otherwise), and gives the parent model the
// tools workflow, agent and subagent_*: it writes workflow scripts for
// many similar tasks, independent opinions or stages, hands single tasks
// to one sub-agent, and steers background sub-agents. Run asks the model
// one task with Prompt as its instructions and returns its final answer;
// Close ends the sub-agents the parent left open, since nobody is left to
// steer them.
//
// # What it owns
//
// The parent's task prompt (Prompt), the set of tools it gets (Tools), its
// own request to the model, the sentence that says why it did not answer,
// and how a script it writes is framed when shown (Config.ShowScript).
//
// # What it must never do
//
// It reads no flags, writes nothing to stdout or stderr and handles no
// signals: the caller cancels Run's context (cmd/wfrun on SIGINT). It
// reaches runs only through engine/tool, which uses the engine's public
// API. It configures no provider from the environment: the caller hands it
// the model's openai.Config (engine/setup.OpenAIConfig builds the command
// line's).
package parent
