// One workflow run inside a worker_threads worker: the design wfrun
// replaces. The worker evaluates the script as the body of an async
// function; agent() posts a message to the main thread and resolves when
// the main thread answers. A worker started with workerData.script runs it
// once and exits; one started without it serves {type:'run'} messages until
// the main thread closes it (the fan-out rounds reuse one worker).
import { parentPort, workerData } from 'node:worker_threads';

const AsyncFunction = (async () => {}).constructor;
const pending = new Map();
let nextId = 0;

function agent(prompt) {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    parentPort.postMessage({ type: 'agent', id, prompt });
  });
}

// The script's `export const meta = {...}` is a plain constant inside the body.
function compile(script) {
  const body = script.replace(/^(\s*)export\s+const\s+meta\b/m, '$1const meta');
  return new AsyncFunction('agent', 'args', body);
}

async function run(script, args) {
  try {
    const value = await compile(script)(agent, args);
    parentPort.postMessage({ type: 'done', value: JSON.parse(JSON.stringify(value ?? null)) });
  } catch (err) {
    parentPort.postMessage({ type: 'done', error: String(err && err.stack || err) });
  }
}

parentPort.on('message', (msg) => {
  if (msg.type === 'result') {
    const resolve = pending.get(msg.id);
    pending.delete(msg.id);
    resolve(msg.text);
  } else if (msg.type === 'run') {
    run(msg.script, msg.args);
  }
});

if (workerData && workerData.script !== undefined) {
  run(workerData.script, workerData.args).then(() => parentPort.close());
}
