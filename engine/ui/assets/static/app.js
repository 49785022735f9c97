// wfrun ui: the few things the pages do without a reload. Markup only ever
// comes from the server's own fragments (rendered by html/template); text
// from events goes in with textContent.
'use strict';

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);

  // fetchFragment GETs one of the server's fragments and puts it in place
  // of el's children, keeping open <details> open.
  async function fetchFragment(url, el) {
    const res = await fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
    if (!res.ok) throw new Error(url + ': ' + res.status);
    const html = await res.text();
    const open = new Set([...el.querySelectorAll('details[open][id]')].map(d => d.id));
    el.innerHTML = html;
    for (const id of open) {
      const d = document.getElementById(id);
      if (d) d.open = true;
    }
  }

  // throttled runs fn at most once per wait ms, and once more after the
  // last call.
  function throttled(fn, wait) {
    let timer = null, again = false;
    return function call() {
      if (timer) { again = true; return; }
      timer = setTimeout(async () => {
        try { await fn(); } catch (e) { console.warn(e); }
        timer = null;
        if (again) { again = false; call(); }
      }, wait);
    };
  }

  // The runs list: the filter re-renders the list in place, and the list
  // follows the ledger.
  function runsPage(root) {
    const form = $('#filter', root), body = $('#runs-body', root);
    const query = () => new URLSearchParams(new FormData(form)).toString();
    const refresh = throttled(() => fetchFragment('/list?' + query(), body), 150);
    form.addEventListener('input', () => {
      history.replaceState(null, '', '/?' + query());
      refresh();
    });
    form.addEventListener('submit', e => { e.preventDefault(); refresh(); });
    const es = new EventSource('/events');
    es.addEventListener('changed', refresh);
  }

  // One run: its events arrive as server-sent events from the offset the
  // page was rendered at; each one re-renders the body, and the live log
  // shows it. While the run is live the body is also re-rendered every two
  // seconds, so that running bars grow.
  function runPage(root) {
    const id = root.dataset.run;
    const body = $('#run-body', root);
    const log = $('#live-log', root), state = $('#live-state', root);
    const refresh = throttled(() => fetchFragment('/runs/' + id + '/body', body), 200);
    const live = () => { const s = $('.run-state', body); return s && s.dataset.live === 'true'; };

    const es = new EventSource('/runs/' + id + '/events?from=' + encodeURIComponent(root.dataset.offset || '0'));
    es.onopen = () => { state.textContent = 'following events.jsonl'; };
    es.onerror = () => { state.textContent = 'reconnecting…'; };
    es.onmessage = msg => {
      let ev;
      try { ev = JSON.parse(msg.data); } catch { return; }
      const li = document.createElement('li');
      li.textContent = describe(ev);
      li.dataset.type = ev.type;
      log.prepend(li);
      while (log.children.length > 200) log.lastChild.remove();
      refresh();
    };
    setInterval(() => { if (live() && !document.hidden) refresh(); }, 2000);

    // The verbs: each asks first, then shows what the server said.
    const dialog = $('#confirm', root), result = $('#verb-result', root);
    let pending = null;
    root.addEventListener('click', e => {
      const btn = e.target.closest('button[data-verb]');
      if (!btn || btn.disabled) return;
      pending = btn.dataset.verb;
      const ask = QUESTIONS[pending];
      $('#confirm-title', dialog).textContent = ask.title;
      $('#confirm-text', dialog).textContent = ask.text;
      $('#confirm-ok', dialog).textContent = ask.ok;
      const field = $('#confirm-field', dialog), input = $('#confirm-input', dialog);
      field.hidden = !ask.field;
      input.value = '';
      input.required = pending === 'follow_up';
      if (ask.field) $('#confirm-label', dialog).textContent = ask.field;
      dialog.returnValue = '';
      dialog.showModal();
      (ask.field ? input : $('#confirm-ok', dialog)).focus();
    });
    dialog.addEventListener('close', async () => {
      if (dialog.returnValue !== 'ok' || !pending) return;
      const verb = pending;
      pending = null;
      const form = new URLSearchParams();
      form.set(verb === 'stop' ? 'reason' : 'text', $('#confirm-input', dialog).value);
      show('Applying ' + QUESTIONS[verb].ok.toLowerCase() + '…', false);
      try {
        const res = await fetch('/runs/' + id + '/' + (verb === 'follow_up' ? 'note' : verb), {
          method: 'POST', credentials: 'same-origin', body: form,
        });
        const ans = await res.json();
        show(ans.ok ? ans.message : ans.error, !ans.ok, ans.newRunId);
      } catch (err) {
        show('The request failed: ' + err.message, true);
      }
      refresh();
    });

    function show(text, bad, newRun) {
      result.hidden = false;
      result.classList.toggle('bad', !!bad);
      result.dataset.outcome = bad ? 'error' : 'ok';
      result.textContent = text;
      if (newRun) {
        const a = document.createElement('a');
        a.href = '/runs/' + newRun;
        a.textContent = ' Open ' + newRun + '.';
        a.id = 'new-run';
        result.append(a);
      }
    }
  }

  const QUESTIONS = {
    stop: { title: 'Stop this run?', ok: 'Stop', field: 'Reason (optional)',
      text: 'The run is cancelled, with every agent still running, by whichever process runs it, at its next heartbeat. It can be retried later; its finished agents replay for free.' },
    retry: { title: 'Retry this run?', ok: 'Retry',
      text: 'A new run starts from this run\'s saved request, in this wfrun ui process, and replays the agents this run finished without paying for them again.' },
    continue: { title: 'Continue this run in place?', ok: 'Continue',
      text: 'The abandoned run starts again under its own id, in this wfrun ui process, replaying what its journal holds.' },
    follow_up: { title: 'Add a note', ok: 'Add note', field: 'Note',
      text: 'The note goes on the run\'s timeline; its status stays as it is.' },
  };

  // describe renders one event as a line of the live log.
  function describe(ev) {
    const t = ev.time ? new Date(ev.time).toLocaleTimeString() : '';
    switch (ev.type) {
      case 'run.start': return t + ' run.start' + (ev.concurrency ? ' (' + ev.concurrency + ' slots)' : '');
      case 'phase': return t + ' phase ' + ev.title;
      case 'log': return t + ' log ' + ev.message;
      case 'agent.start': return t + ' agent.start #' + ev.seq + ' ' + (ev.label || '') + (ev.replayed ? ' (replayed)' : '');
      case 'agent.end': return t + ' agent.end #' + ev.seq + ' ' + (ev.label || '') + ' ' + ev.outcome + (ev.error ? ': ' + ev.error : '');
      case 'run.end': return t + ' run.end ' + ((ev.result && ev.result.stopReason) || '');
    }
    return t + ' ' + ev.type;
  }

  document.addEventListener('DOMContentLoaded', () => {
    const root = $('[data-page]');
    if (!root) return;
    if (root.dataset.page === 'runs') runsPage(root);
    if (root.dataset.page === 'run') runPage(root);
  });
})();
