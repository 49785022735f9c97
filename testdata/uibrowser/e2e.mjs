// The browser test of wfrun ui: Playwright (playwright-core, pinned here)
// drives the machine's Chromium through the pages of a real `wfrun ui`
// that cmd/wfrun's TestEndToEnd_TheWebPageInARealBrowser started on a
// fixture ledger and on a run in progress in another process.
//
//   node e2e.mjs CONFIG_JSON
//
// CONFIG_JSON: {"base": "http://127.0.0.1:PORT", "token": "…",
// "chromium": "/usr/bin/chromium", "shots": "DIR", "docsShot": "FILE" or "",
// "runs": {"completed", "failed", "cancelled", "abandoned", "live": RUNID}}.
// Prints "ui-e2e: all steps passed" at the end; any failed check throws.
import { chromium } from 'playwright-core';
import path from 'node:path';

const cfg = JSON.parse(process.argv[2]);
const runs = cfg.runs;
const step = name => console.log('ui-e2e: ' + name);
const check = (cond, what) => { if (!cond) throw new Error('check failed: ' + what); };

const browser = await chromium.launch({
  executablePath: cfg.chromium,
  headless: true,
  // The flags that work on this machine's closed network; Playwright gives
  // the browser a fresh, empty profile of its own.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const problems = [];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  // Anything the page's script or the Content-Security-Policy complains
  // about fails the test; so does a dialog that a run's text opened.
  let refusals = 0; // the refused verbs this script asks for on purpose
  page.on('console', m => {
    if (m.type() !== 'error') return;
    if (refusals > 0 && m.text().includes('status of 409')) { refusals--; return; }
    problems.push('console: ' + m.text() + ' (' + (m.location().url || '') + ')');
  });
  page.on('pageerror', e => problems.push('page error: ' + e.message));
  page.on('dialog', d => { problems.push('a dialog opened: ' + d.message()); d.dismiss(); });
  const shot = async name => page.screenshot({ path: path.join(cfg.shots, name), fullPage: true });

  step('log in with the token: the cookie is set and the address loses the token');
  await page.goto(cfg.base + '/?token=' + encodeURIComponent(cfg.token));
  check(!page.url().includes('token'), 'the address after the login still holds the token: ' + page.url());
  await page.waitForSelector('#runs-body');

  step('the list groups the runs the way a person scans them');
  const inGroup = (group, id) => page.locator(`section[data-group="${group}"] tr[data-run="${id}"]`);
  for (const [group, id] of [['attention', runs.abandoned], ['working', runs.live], ['completed', runs.completed],
    ['failed', runs.failed], ['stopped', runs.cancelled]]) {
    check(await inGroup(group, id).count() === 1, `run ${id} is not under ${group}`);
  }
  const groups = await page.locator('section[data-group]').evaluateAll(els => els.map(e => e.dataset.group));
  check(groups.join(' ') === 'attention working completed failed stopped', 'the groups come in the order ' + groups.join(' '));
  const completedRow = await inGroup('completed', runs.completed).innerText();
  check(completedRow.includes('release-review') && completedRow.includes('11') && completedRow.includes('2 failed'),
    'the completed run\'s row: ' + completedRow);
  await shot('list.png');

  step('the filter narrows the list in place, by status and by name');
  await page.selectOption('#filter-status', 'failed');
  await page.waitForFunction(id => {
    const rows = [...document.querySelectorAll('#runs-body tr[data-run]')];
    return rows.length === 1 && rows[0].dataset.run === id;
  }, runs.failed);
  check(page.url().includes('status=failed'), 'the address does not keep the filter: ' + page.url());
  await page.selectOption('#filter-status', '');
  await page.fill('#filter-name', 'REVIEW');
  await page.waitForFunction(id => {
    const rows = [...document.querySelectorAll('#runs-body tr[data-run]')];
    return rows.length === 1 && rows[0].dataset.run === id;
  }, runs.completed);

  step('a run: meta and args, phases with totals, the timeline\'s bars, each agent');
  await page.goto(cfg.base + '/runs/' + runs.completed);
  check((await page.locator('h1 .name').innerText()) === 'release-review', 'the run\'s name');
  const args = await page.locator('#run-args').innerText();
  check(args.includes('<script>alert(1)</script>'), 'the args are not shown as text: ' + args);
  const phases = await page.locator('tr[data-phase]').evaluateAll(els => els.map(e => e.dataset.phase));
  check(phases.join(',') === 'Review,Verify,Report', 'phases: ' + phases);
  check((await page.locator('tr[data-phase="Report"] .phase-tokens').innerText()) === '1.5k', 'the Report phase\'s tokens');
  const bars = page.locator('svg.bar');
  check(await bars.count() === 11, 'bars: ' + await bars.count());
  check(await page.locator('.lane:not(.axis)').count() <= 3, 'more timeline rows than the run\'s 3 slots');
  check(await page.locator('svg.bar[data-status="failed"]').count() === 1, 'one failed bar');
  check(await page.locator('svg.bar[data-status="timed_out"]').count() === 1, 'one timed-out bar');
  const box = await page.locator('svg.bar[data-seq="11"]').boundingBox();
  const lane = await page.locator('.lane:not(.axis) .track').first().boundingBox();
  check(box && box.width > 20 && box.x > lane.x + lane.width / 2, 'the report\'s bar is not late on the axis: ' + JSON.stringify(box));
  // A bar links to its agent, which opens to its prompt and result.
  await page.locator('a.bar-link:has(svg.bar[data-seq="2"])').click();
  await page.locator('#agent-2 > summary').click();
  const storage = await page.locator('#agent-2').innerText();
  check(storage.includes('Review the storage of: Move sessions') && storage.includes('"risk": "high"'), 'agent #2: ' + storage);
  check(storage.includes('<b>under load</b>'), 'the agent\'s answer is not shown as text');
  await page.locator('#agent-3 > summary').click();
  check((await page.locator('#agent-3 .agent-error').innerText()).includes('task_failed'), 'the failed agent\'s failure kind');
  check(await page.locator('button[data-verb="stop"]').isDisabled(), 'stop is offered on a completed run');
  check((await page.locator('button[data-verb="stop"]').getAttribute('title')).includes('nothing to stop'),
    'the disabled stop does not say why');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.mouse.move(0, 0);
  await shot('run.png');
  if (cfg.docsShot) {
    await page.screenshot({ path: cfg.docsShot, clip: { x: 0, y: 0, width: 1280, height: 900 } });
  }

  step('a note: asked for, applied, on the timeline');
  await page.click('button[data-verb="follow_up"]');
  await page.fill('#confirm-input', 'checked by the browser test');
  await page.click('#confirm-ok');
  await page.waitForFunction(() => document.querySelector('#verb-result').textContent.includes('Note added'));
  await page.waitForFunction(() => document.querySelector('#history').textContent.includes('checked by the browser test'));

  step('a verb the ledger refuses says why (asked for from the page\'s own script)');
  refusals++;
  const refused = await page.evaluate(async id => {
    const res = await fetch('/runs/' + id + '/retry', { method: 'POST', body: new URLSearchParams() });
    return { status: res.status, body: await res.json() };
  }, runs.completed);
  check(refused.status === 409 && refused.body.error.includes('nothing to retry'), 'a refused retry: ' + JSON.stringify(refused));

  step('the live run: its page updates without a reload');
  await page.goto(cfg.base + '/runs/' + runs.live);
  await page.evaluate(() => { window.__sameDocument = true; });
  check((await page.locator('#run-status').innerText()) === 'running', 'the live run is not running');
  const before = await page.locator('svg.bar').count();
  await page.waitForFunction(n => document.querySelectorAll('svg.bar').length > n, before, { timeout: 20000 });
  await page.waitForSelector('#live-log li[data-type="agent.start"]');
  check(await page.evaluate(() => window.__sameDocument === true), 'the page was reloaded');
  check(await page.locator('svg.bar[data-status="running"]').count() === 1, 'the running agent\'s bar');
  await shot('live.png');

  step('stop, confirmed, cancels the run in its own process');
  await page.click('button[data-verb="stop"]');
  check(await page.locator('#confirm').isVisible(), 'stop did not ask first');
  check((await page.locator('#confirm-title').innerText()).includes('Stop'), 'the question');
  await page.fill('#confirm-input', 'stopped by the browser test');
  await page.click('#confirm-ok');
  await page.waitForFunction(() => document.querySelector('#verb-result').textContent.includes('Stop requested'));
  await page.waitForFunction(() => document.querySelector('#run-status').textContent === 'cancelled', null, { timeout: 20000 });
  await page.waitForSelector('#live-log li[data-type="run.end"]');
  check(await page.evaluate(() => window.__sameDocument === true), 'the page was reloaded');
  check((await page.locator('#run-error').innerText()).includes('stopped by the browser test'), 'the run\'s error names the reason');
  check(await page.locator('svg.bar[data-status="running"]').count() === 0, 'a bar still running after the stop');
  await shot('stopped.png');

  step('retry of the failed run starts a new run in wfrun ui, linked to the old one');
  await page.goto(cfg.base + '/runs/' + runs.failed);
  await page.click('button[data-verb="retry"]');
  await page.click('#confirm-ok');
  await page.waitForSelector('#new-run');
  await page.click('#new-run');
  await page.waitForFunction(id => document.body.textContent.includes('Resumes ' + id), runs.failed);
  await page.waitForFunction(() => document.querySelector('#run-status').textContent !== 'running', null, { timeout: 20000 });

  check(problems.length === 0, 'the browser complained:\n' + problems.join('\n'));
  await context.close();
} finally {
  await browser.close();
}
console.log('ui-e2e: all steps passed');
