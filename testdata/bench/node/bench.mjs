// The Node.js side of wfrun's speed comparison (docs/benchmarks.md): one
// worker_threads worker per run, agent() as a message round trip to the
// main thread, which answers at once with the prompt (like wfrun's fake
// provider at zero delay). Plain Node, no dependencies.
//
// It reads one JSON request per line on stdin and answers each with one
// JSON line on stdout, so that the Go driver can interleave its rounds with
// wfrun's in one run of the comparison:
//
//   {"op":"start","script":S,"runs":N}             -> {"us":[...]}  start to result of N runs, one after another
//   {"op":"throughput","script":S,"lanes":L,"ms":D} -> {"runs":R,"seconds":T}
//   {"op":"fanout","script":S,"rounds":K}           -> {"us":[...]}  K runs of S in one worker
//   {"op":"suspended","script":S,"runs":N}          -> {"runs":N,"rssMiB":M,"addedMiB":A}
//
// Run by hand: node bench.mjs <<< '{"op":"start","script":"return 1","runs":3}'
import { Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';

const workerURL = new URL('./worker.mjs', import.meta.url);

// attach answers the worker's agent() calls at once; silent workers' calls
// are never answered (the suspended runs).
function attach(w, onDone, silent = false) {
  w.on('message', (msg) => {
    if (msg.type === 'agent') {
      if (!silent) w.postMessage({ type: 'result', id: msg.id, text: msg.prompt });
    } else if (msg.type === 'done') {
      onDone(msg);
    }
  });
}

function check(msg) {
  if (msg.error) throw new Error('the script failed in the worker: ' + msg.error);
}

const nowUs = () => Number(process.hrtime.bigint()) / 1e3;

// runOnce starts a worker for one run and resolves with start-to-result
// microseconds once the worker has exited (the exit is not timed).
function runOnce(script) {
  return new Promise((resolve, reject) => {
    const t0 = nowUs();
    const w = new Worker(workerURL, { workerData: { script } });
    let us;
    attach(w, (msg) => {
      us = nowUs() - t0;
      try { check(msg); } catch (e) { reject(e); }
    });
    w.on('error', reject);
    w.on('exit', () => (us === undefined ? reject(new Error('the worker exited without a result')) : resolve(us)));
  });
}

async function start({ script, runs }) {
  const us = [];
  for (let i = 0; i < runs; i++) us.push(await runOnce(script));
  return { us };
}

async function throughput({ script, lanes, ms }) {
  const t0 = nowUs();
  const end = t0 + ms * 1e3;
  let runs = 0;
  const lane = async () => {
    while (nowUs() < end) {
      await runOnce(script);
      runs++;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return { runs, seconds: (nowUs() - t0) / 1e6 };
}

async function fanout({ script, rounds }) {
  const w = new Worker(workerURL);
  let done;
  attach(w, (msg) => done(msg));
  const us = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const t0 = nowUs();
      const msg = await new Promise((resolve) => {
        done = resolve;
        w.postMessage({ type: 'run', script });
      });
      us.push(nowUs() - t0);
      check(msg);
    }
  } finally {
    await w.terminate();
  }
  return { us };
}

function rssMiB() {
  return process.memoryUsage().rss / (1 << 20);
}

async function suspended({ script, runs }) {
  global.gc?.();
  const before = rssMiB();
  const workers = [];
  const waiting = [];
  for (let i = 0; i < runs; i++) {
    const w = new Worker(workerURL, { workerData: { script } });
    workers.push(w);
    waiting.push(new Promise((resolve, reject) => {
      w.on('message', (msg) => msg.type === 'agent' && resolve());
      w.on('error', reject);
      attach(w, (msg) => reject(new Error('a suspended run finished: ' + (msg.error || 'it did not wait for its agent'))), true);
    }));
  }
  await Promise.all(waiting);
  const during = rssMiB();
  await Promise.all(workers.map((w) => w.terminate()));
  return { runs, rssMiB: during, addedMiB: during - before };
}

const ops = { start, throughput, fanout, suspended };

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  let reply;
  try {
    const req = JSON.parse(line);
    const op = ops[req.op];
    if (!op) throw new Error(`unknown op ${JSON.stringify(req.op)}; the ops are ${Object.keys(ops).join(', ')}`);
    reply = await op(req);
  } catch (err) {
    reply = { error: String(err && err.stack || err) };
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
}
