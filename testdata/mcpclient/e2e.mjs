// Drives `wfrun mcp` with the official MCP TypeScript client, as an MCP host
// would: over stdio (wfrun started as a subprocess), and over streamable
// HTTP with a bearer token. Run by cmd/wfrun's end-to-end test:
//
//   node e2e.mjs WFRUN_BINARY FAKE_RULES_FILE EVENTS_DIR
//
// Each server writes its events to EVENTS_DIR/stdio.jsonl or http.jsonl,
// which the Go test checks.
// It prints one line per step ("ok STEP") and exits 0, or prints the
// failure and exits 1. Every wait is bounded, so it never hangs.
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'

const [bin, rules, eventsDir] = process.argv.slice(2)
if (!bin || !rules || !eventsDir) {
  console.error('usage: node e2e.mjs WFRUN_BINARY FAKE_RULES_FILE EVENTS_DIR')
  process.exit(2)
}

// A saved workflow for the servers' --workflows-dir.
mkdirSync(`${eventsDir}/workflows`, { recursive: true })
writeFileSync(`${eventsDir}/workflows/e2e-saved.js`, "export const meta = { name: 'e2e-saved', description: 'A saved workflow of the e2e test' }\nreturn 'saved for ' + args.who\n")

function check(cond, what, detail) {
  if (!cond) throw new Error(`${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`)
}
const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(what, fn, ms = 10000) {
  const deadline = Date.now() + ms
  for (;;) {
    const got = await fn()
    if (got) return got
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`)
    await sleep(20)
  }
}

const SLOW = "export const meta = { name: 'slow', description: 'one agent that takes its time' }\nphase('Waiting')\nreturn await agent('slow: take your time')"

// The steps every transport must pass.
async function exercise(client, label) {
  const { tools } = await client.listTools()
  const names = tools.map((t) => t.name).sort()
  check(names.join(',') === 'agent,ralph,subagent_close,subagent_interrupt,subagent_list,subagent_result,subagent_send,subagent_start,workflow,workflow_cancel,workflow_list,workflow_status,workflow_wait', 'list the tools', names)
  const wf = tools.find((t) => t.name === 'workflow')
  // Claude Code's three ways to give the script; none is required on its own.
  check(wf.inputSchema.type === 'object' && ['script', 'scriptPath', 'name'].every((k) => k in wf.inputSchema.properties) && !(wf.inputSchema.required ?? []).includes('script') && wf.description.includes('export const meta'), 'the workflow tool', wf)
  const wfDescription = wf.description
  console.log(`ok ${label}: list the tools`)

  const progress = []
  const done = await client.callTool({
    name: 'workflow',
    arguments: {
      script: "export const meta = { name: 'panel', description: 'two voices' }\nphase('Ask')\nconst [a, b] = await parallel([() => agent('first voice'), () => agent('second voice')])\nreturn { a, b, n: args.n }",
      args: { n: 7 },
    },
  }, undefined, { onprogress: (p) => progress.push(p) })
  check(!done.isError && text(done).startsWith('workflow "panel" completed (2 agents') && text(done).includes('"n": 7'), 'call workflow', text(done))
  check(done.structuredContent?.stopReason === 'completed' && done.structuredContent.value.a === 'first voice', 'structured content', done.structuredContent)
  check(done.structuredContent.isError === false && done.structuredContent.summary === text(done).split('\n')[0], 'structured content opens with isError and the summary', done.structuredContent)
  check(tools.every((t) => t.outputSchema?.required?.includes('isError')), 'every tool declares its outputSchema', tools.map((t) => t.outputSchema))
  console.log(`ok ${label}: call workflow and get the result`)

  // The client runs notification handlers a tick after it reads them and
  // forgets the token when the response comes, so notifications that
  // arrive in the same read as the response are dropped: the voices take
  // 300 ms (the rules file), so the earlier ones arrive on their own.
  check(progress.length >= 3, 'progress notifications arrive', progress)
  check(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), 'progress grows', progress)
  check(progress.some((p) => /^Ask · agents 0\/2 done, 2 running, 0 failed · /.test(p.message ?? '')), 'progress names the phase and agents', progress)
  console.log(`ok ${label}: progress notifications arrive`)

  const bad = await client.callTool({ name: 'workflow', arguments: { script: "export const meta = { name: 'bad', description: 'x' }\nconst n: number = 1\nreturn n" } })
  check(bad.isError === true && /SCRIPT_PARSE at line 2, column \d+/.test(text(bad)), 'a script error is isError with the line', text(bad))
  check(bad.structuredContent?.isError === true && bad.structuredContent.errorText === text(bad) && bad.structuredContent.errorLine === 2, 'a script error is unmistakable in the JSON alone', bad.structuredContent)
  console.log(`ok ${label}: a script error is isError naming the line`)

  // log() lines reach the caller: the latest in each progress
  // notification, the last 20 at the end of the result.
  const logged = []
  const chatty = await client.callTool({
    name: 'workflow',
    arguments: { script: "export const meta = { name: 'chatty', description: 'logs' }\nphase('Count')\nfor (let i = 1; i <= 25; i++) log('line ' + i)\nreturn await agent('first voice')" },
  }, undefined, { onprogress: (p) => logged.push(p) })
  check(!chatty.isError && text(chatty).endsWith('  line 25\n') && text(chatty).includes('  line 6\n') && !text(chatty).includes('  line 5\n'), 'the result ends with the last 20 log lines', text(chatty))
  check(logged.some((p) => /^Count · .* · log: line 25$/.test(p.message ?? '')), 'progress carries the latest log line', logged)
  console.log(`ok ${label}: log lines reach the caller`)

  // A saved workflow by name (--workflows-dir), as Claude Code's Workflow tool takes it.
  const saved = await client.callTool({ name: 'workflow', arguments: { name: 'e2e-saved', args: { who: label } } })
  check(!saved.isError && text(saved).includes(`"saved for ${label}"`) && text(saved).includes('e2e-saved.js'), 'a saved workflow runs by name', text(saved))
  check(wfDescription.includes('- e2e-saved: A saved workflow of the e2e test'), 'the description lists the saved workflows', wfDescription.slice(-300))
  console.log(`ok ${label}: a saved workflow runs by name`)

  // Abort a foreground call once its agent is running.
  const abort = new AbortController()
  const aborted = client.callTool({ name: 'workflow', arguments: { script: SLOW } }, undefined, {
    signal: abort.signal,
    onprogress: (p) => { if (/1 running/.test(p.message ?? '')) abort.abort('enough') },
  }).then(() => 'resolved', (err) => `rejected: ${err}`)
  check((await aborted).startsWith('rejected'), 'the aborted call rejects', await aborted)
  const cancelled = await until('workflow_list shows the aborted run cancelled', async () => {
    const list = await client.callTool({ name: 'workflow_list', arguments: {} })
    const run = list.structuredContent.runs.find((r) => r.meta.name === 'slow' && !r.background)
    return run?.status === 'cancelled' ? run : null
  })
  check(cancelled.agents.running === 0, 'the aborted run has no agent left running', cancelled)
  console.log(`ok ${label}: aborting the call cancels the run`)

  const started = await client.callTool({ name: 'workflow', arguments: { script: SLOW, background: true } })
  const runId = started.structuredContent?.runId
  check(!started.isError && /^wf_[0-9a-f]{16}$/.test(runId ?? ''), 'a background start returns {runId}', started)
  // The run has just started: wait until its agent is running.
  const status = await until('workflow_status shows the agent running', async () => {
    const st = await client.callTool({ name: 'workflow_status', arguments: { runId } })
    check(!st.isError && st.structuredContent.status === 'running', 'workflow_status', st.structuredContent)
    return st.structuredContent.agents.running === 1 ? st : null
  })
  check(status.structuredContent.phase === 'Waiting' && text(status).includes('is running: phase Waiting'), 'workflow_status names the phase', text(status))
  const waited = await client.callTool({ name: 'workflow_wait', arguments: { runId, timeoutMs: 50 } })
  check(!waited.isError && text(waited).includes('is running'), 'workflow_wait that times out', text(waited))
  const stop = await client.callTool({ name: 'workflow_cancel', arguments: { runId, reason: 'e2e is done' } })
  check(!stop.isError && stop.structuredContent.status === 'cancelled', 'workflow_cancel', stop.structuredContent)
  const after = await client.callTool({ name: 'workflow_wait', arguments: { runId } })
  check(after.isError === true && text(after).includes('was cancelled') && text(after).includes('e2e is done'), 'workflow_wait after cancel', text(after))

  const quick = await client.callTool({ name: 'workflow', arguments: { script: "export const meta = { name: 'quick', description: 'x' }\nreturn 'q'.repeat(60000)", background: true } })
  const quickResult = await client.callTool({ name: 'workflow_wait', arguments: { runId: quick.structuredContent.runId, timeoutMs: 10000 } })
  const uri = `wfrun://runs/${quick.structuredContent.runId}/result`
  check(!quickResult.isError && text(quickResult).includes(uri), 'a long value names its resource', text(quickResult).slice(-300))
  const resource = await client.readResource({ uri })
  check(JSON.parse(resource.contents[0].text).value.length === 60000, 'the resource holds the whole value', resource.contents[0].text.length)
  console.log(`ok ${label}: a background run can be started, waited for and cancelled`)

  await subagents(client, label)
}

// The continuable sub-agents: two children, a follow-up to one while its
// first turn runs (the rules make "research" turns take 1.5 s), an
// interrupt of the other (its "linger" turn would take 30 s) and a later
// send that wakes it, the list, the results, the reports as notifications
// and the resource.
async function subagents(client, label) {
  const logs = []
  const updates = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { if (n.params.logger === 'wfrun.subagents') logs.push(n.params) })
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri))
  await client.setLoggingLevel('info')

  const startA = await client.callTool({ name: 'subagent_start', arguments: { prompt: 'research A' } })
  const a = startA.structuredContent?.childId
  check(!startA.isError && /^sa_[0-9a-f]{16}$/.test(a ?? '') && text(startA).includes('runs in the background'), 'subagent_start returns {childId}', startA)
  await client.subscribeResource({ uri: `wfrun://subagents/${a}` })
  const startB = await client.callTool({ name: 'subagent_start', arguments: { prompt: 'linger over B' } })
  const b = startB.structuredContent?.childId
  check(!startB.isError && b && b !== a, 'a second sub-agent', startB)
  console.log(`ok ${label}: start two sub-agents`)

  const followUp = await client.callTool({ name: 'subagent_send', arguments: { childId: a, message: 'also check arxiv' } })
  check(!followUp.isError && followUp.structuredContent.turn === 2 && followUp.structuredContent.ahead === 1, 'a follow-up during turn one waits for it', followUp.structuredContent)
  console.log(`ok ${label}: a follow-up sent during turn one is queued as turn two`)

  await until('sub-agent B runs its first turn', async () => {
    const list = await client.callTool({ name: 'subagent_list', arguments: {} })
    return list.structuredContent.children.find((c) => c.childId === b)?.runningTurn === 1
  })
  const interrupted = await client.callTool({ name: 'subagent_interrupt', arguments: { childId: b } })
  check(!interrupted.isError && interrupted.structuredContent.turn === 1 && text(interrupted).startsWith('Interrupted turn 1'), 'subagent_interrupt', interrupted)
  const cancelled = await client.callTool({ name: 'subagent_result', arguments: { childId: b, turn: 1, timeoutMs: 10000 } })
  check(cancelled.isError === true && cancelled.structuredContent.status === 'cancelled' && text(cancelled).includes('interrupted by its parent'), 'the interrupted turn ends cancelled', text(cancelled))
  console.log(`ok ${label}: interrupt the other's turn`)

  const one = await client.callTool({ name: 'subagent_result', arguments: { childId: a, timeoutMs: 10000 } })
  check(!one.isError && text(one) === `Turn 1 of ${a} completed:\nresearch A`, 'subagent_result of turn one', text(one))
  const two = await client.callTool({ name: 'subagent_result', arguments: { childId: a, timeoutMs: 10000 } })
  check(!two.isError && two.structuredContent.turn === 2 && two.structuredContent.text === 'also check arxiv', 'the follow-up ran as turn two', two.structuredContent)
  const woken = await client.callTool({ name: 'subagent_send', arguments: { childId: b, message: 'just list the sources' } })
  check(!woken.isError && woken.structuredContent.turn === 2, 'a later send to the interrupted sub-agent', woken.structuredContent)
  const after = await client.callTool({ name: 'subagent_result', arguments: { childId: b, turn: 2, timeoutMs: 10000 } })
  check(!after.isError && after.structuredContent.text === 'just list the sources', 'the later send runs', after.structuredContent)
  console.log(`ok ${label}: results, and a later send wakes the interrupted sub-agent`)

  const list = await client.callTool({ name: 'subagent_list', arguments: { scope: 'descendants' } })
  const kids = list.structuredContent.children
  check(kids.length === 2 && kids[0].childId === a && kids[1].childId === b && kids.every((c) => c.status === 'idle' && c.depth === 1 && c.turns === 2), 'subagent_list', kids)
  check(kids[0].lastReport === 'also check arxiv' && kids[1].lastStatus === 'completed', 'the list shows the last reports', kids)
  console.log(`ok ${label}: list the sub-agents with their last reports`)

  await until('a report of every turn arrives as a logging message', async () => logs.length >= 4)
  check(logs.some((l) => l.data.childId === b && l.data.turn === 1 && l.data.status === 'cancelled' && l.level === 'warning'), 'the interrupted turn is reported', logs)
  check(logs.some((l) => l.data.childId === a && l.data.turn === 2 && l.data.message === `sub-agent ${a}: turn 2 completed: also check arxiv`), 'the follow-up is reported', logs)
  await until('the subscribed resource is updated', async () => updates.filter((u) => u === `wfrun://subagents/${a}`).length >= 2)
  const resource = await client.readResource({ uri: `wfrun://subagents/${a}` })
  const entry = JSON.parse(resource.contents[0].text)
  check(entry.childId === a && entry.turns.length === 2 && entry.turns[1].message === 'also check arxiv', 'the sub-agent resource', entry)
  console.log(`ok ${label}: reports arrive as notifications and the resource is readable`)

  const closed = await client.callTool({ name: 'subagent_close', arguments: { childId: b } })
  check(!closed.isError && closed.structuredContent.status === 'cancelled', 'subagent_close', closed.structuredContent)
  const refused = await client.callTool({ name: 'subagent_send', arguments: { childId: b, message: 'still there?' } })
  check(refused.isError === true && text(refused).includes('takes no more messages'), 'a closed sub-agent takes no messages', text(refused))
  console.log(`ok ${label}: close a sub-agent`)
}

// A line on the server's stdin that is not a message (a client's bug, or
// another writer on the same pipe) is answered with a JSON-RPC error, and
// the session goes on: the client's next call is answered. The answers
// have no id (the lines had none), so the client reports them as
// responses to no request.
async function survivesGarbage(client, transport) {
  const errors = []
  client.onerror = (err) => errors.push(String(err))
  const before = await client.callTool({ name: 'workflow_list', arguments: {} })
  check(!before.isError, 'a call before the garbage', before)
  // The SDK's StdioClientTransport keeps the child in _process (pinned
  // by package-lock.json); it has no public way to write a raw line.
  const stdin = transport._process?.stdin
  check(stdin, "the transport gives the server's stdin", typeof stdin)
  stdin.write('this line is not JSON\n')
  stdin.write('{"hello":"world"}\n')
  await until('the server answers both lines', async () =>
    errors.some((e) => e.includes('"code":-32700')) && errors.some((e) => e.includes('"code":-32600')))
  const after = await client.callTool({ name: 'workflow_list', arguments: {} })
  check(!after.isError && Array.isArray(after.structuredContent?.runs), 'a call after the garbage', after)
  client.onerror = undefined
  console.log('ok stdio: garbage lines between two calls are answered and the session goes on')
}

async function overStdio() {
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--fake-rules', rules, '--events', `${eventsDir}/stdio.jsonl`, '--runs-dir', `${eventsDir}/runs`, '--workflows-dir', `${eventsDir}/workflows`], stderr: 'pipe' })
  const client = new Client({ name: 'wfrun-e2e', version: '1.0.0' })
  await client.connect(transport)
  try {
    await survivesGarbage(client, transport)
    await exercise(client, 'stdio')
  } finally {
    await client.close()
  }
}

async function overHTTP() {
  const token = 'e2e-token-' + process.pid
  const child = spawn(bin, ['mcp', '--fake-rules', rules, '--events', `${eventsDir}/http.jsonl`, '--runs-dir', `${eventsDir}/runs`, '--workflows-dir', `${eventsDir}/workflows`, '--http', '127.0.0.1:0'], {
    env: { ...process.env, WFRUN_AUTH_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'],
  })
  try {
    let stderr = ''
    child.stderr.on('data', (d) => { stderr += d })
    const url = await until('wfrun mcp --http announces its address', async () => stderr.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1])

    const anonymous = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } }),
    })
    check(anonymous.status === 401, 'a request without the token gets 401', anonymous.status)
    console.log('ok http: a request without the token gets 401')

    const client = new Client({ name: 'wfrun-e2e', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    try {
      await exercise(client, 'http')
    } finally {
      await client.close()
    }
  } finally {
    child.kill('SIGTERM')
    await until('wfrun mcp --http exits on SIGTERM', async () => child.exitCode !== null || child.signalCode !== null)
  }
}

const watchdog = setTimeout(() => { console.error('e2e: not done within 120 s'); process.exit(1) }, 120000)
try {
  await overStdio()
  await overHTTP()
  clearTimeout(watchdog)
  console.log('e2e: all steps passed')
} catch (err) {
  console.error(`e2e failed: ${err.stack ?? err}`)
  process.exit(1)
}
