// The Cloud Code tab: the workers registered over AMQP with what they registered and whether one is connected; the
// webhooks (functions and triggers, parse-server's Hooks API) listed, added, pointed elsewhere and deleted; and the jobs: run one with parameters, and each run's status, message and duration
// (`_JobStatus`), refreshed while one runs or while schedules may start one; and the jobs' schedules.
import { api, session } from './api.js';
import { attempt, h, clear, say } from './dom.js';
import { scheduleEditor } from './schedules.js';

const TRIGGERS = ['beforeSave', 'afterSave', 'beforeDelete', 'afterDelete', 'beforeFind', 'afterFind', 'beforeLogin',
  'afterLogin', 'afterLogout', 'beforePasswordResetRequest', 'beforeSaveFile', 'afterSaveFile', 'beforeDeleteFile',
  'afterDeleteFile', 'beforeConnect', 'beforeSubscribe', 'afterEvent'];

export async function showCloudCode(view) {
  const readOnly = session().readOnly;
  const hooks = h('table', { id: 'hooks', class: 'rows' });
  const kind = h('select', { id: 'hook-kind' }, h('option', { value: 'function' }, 'function'), h('option', { value: 'trigger' }, 'trigger'));
  const name = h('input', { id: 'hook-name', placeholder: 'function name' });
  const className = h('input', { id: 'hook-class', placeholder: 'class', hidden: true });
  const trigger = h('select', { id: 'hook-trigger', hidden: true }, TRIGGERS.map((item) => h('option', { value: item }, item)));
  const url = h('input', { id: 'hook-url', placeholder: 'https://...', size: 40, required: true });
  kind.addEventListener('change', () => {
    name.hidden = kind.value !== 'function';
    className.hidden = trigger.hidden = kind.value !== 'trigger';
  });
  const hookForm = h('form', { id: 'hook-form', class: 'toolbar', hidden: readOnly }, kind, name, className, trigger, url,
    h('button', { id: 'hook-save', type: 'submit' }, 'Add webhook'));
  const jobs = h('select', { id: 'job-name' });
  const params = h('input', { id: 'job-params', placeholder: '{"key":"value"}', size: 40 });
  const jobForm = h('form', { id: 'job-form', class: 'toolbar', hidden: readOnly }, jobs, params,
    h('button', { id: 'job-run', type: 'submit' }, 'Run job'));
  const runs = h('table', { id: 'job-runs', class: 'rows' });
  const names = (await api('GET', 'cloud_code/jobs/data')).jobs || [];
  jobs.append(...names.map((job) => h('option', { value: job }, job)));
  let scheduled = false;
  const schedules = scheduleEditor(names, readOnly, () => { scheduled = true; loadRuns(); });
  const workers = h('table', { id: 'workers', class: 'rows' });
  view.append(h('h2', {}, 'Workers'), workers, h('h2', {}, 'Webhooks'), hookForm, hooks, h('h2', {}, 'Jobs'), jobForm, runs,
    h('h2', {}, 'Schedules'), schedules.form, schedules.table);

  const loadHooks = async () => {
    const [functions, triggers] = await Promise.all([api('GET', 'hooks/functions'), api('GET', 'hooks/triggers')]);
    const rows = [...functions.map((item) => ({ kind: 'function', name: item.functionName, url: item.url,
      path: `hooks/functions/${encodeURIComponent(item.functionName)}` })),
    ...triggers.map((item) => ({ kind: 'trigger', name: `${item.triggerName} on ${item.className}`, url: item.url,
      path: `hooks/triggers/${encodeURIComponent(item.className)}/${encodeURIComponent(item.triggerName)}` }))];
    clear(hooks).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'kind'), h('th', {}, 'name'), h('th', {}, 'url'), h('th', {}, ''))),
      h('tbody', {}, rows.length ? rows.map((row) => h('tr', { dataset: { hook: row.name } },
        h('td', {}, row.kind), h('td', {}, row.name), h('td', {}, row.url),
        h('td', {}, readOnly ? '' : [
          h('button', { type: 'button', class: 'hook-edit', onclick: async () => {
            const next = prompt(`New URL of ${row.name}`, row.url);
            if (next) await change(() => api('PUT', row.path, { url: next }), `${row.name} now calls ${next}.`);
          } }, 'Edit URL'),
          h('button', { type: 'button', class: 'hook-delete', onclick: async () => {
            if (confirm(`Delete the webhook ${row.name}?`)) await change(() => api('PUT', row.path, { __op: 'Delete' }), `${row.name} deleted.`);
          } }, 'Delete'),
        ]))) : h('tr', {}, h('td', { class: 'empty', colspan: '4' }, 'No webhooks. Workers register their own functions and triggers.'))));
  };
  const change = async (call, done) => {
    if (await attempt(call, done)) await loadHooks();
  };
  hookForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = kind.value === 'function' ? { functionName: name.value.trim(), url: url.value.trim() }
      : { className: className.value.trim(), triggerName: trigger.value, url: url.value.trim() };
    await change(() => api('POST', `hooks/${kind.value}s`, body), 'Webhook added.');
  });

  let refresh = null;
  const loadRuns = async () => {
    const found = await api('GET', 'classes/_JobStatus', undefined, { order: '-createdAt', limit: 50 });
    clear(runs).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'job'), h('th', {}, 'status'), h('th', {}, 'message'), h('th', {}, 'started'),
        h('th', {}, 'duration'), h('th', {}, 'by'))),
      h('tbody', {}, found.results.length ? found.results.map((run) => {
        const started = new Date(run.createdAt);
        const finished = run.finishedAt ? new Date(run.finishedAt.iso) : null;
        return h('tr', { dataset: { status: run.status, job: run.jobName, source: run.source || '' } }, h('td', {}, run.jobName), h('td', {}, run.status),
          h('td', {}, run.message || ''), h('td', {}, run.createdAt),
          h('td', {}, finished ? `${((finished - started) / 1000).toFixed(1)} s` : 'running'), h('td', {}, run.source || ''));
      }) : h('tr', {}, h('td', { class: 'empty', colspan: '6' }, 'No job has run yet.'))));
    clearTimeout(refresh);
    if (!document.body.contains(runs)) return;
    // Every second while a run is going; every few seconds while a schedule may start the next, with its last run.
    if (found.results.some((run) => run.status === 'running')) {
      refresh = setTimeout(loadRuns, 1000);
    } else if (scheduled) {
      refresh = setTimeout(() => { schedules.load().then(() => loadRuns()).catch(() => {}); }, 3000);
    }
  };
  jobForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    let body = {};
    try { body = params.value.trim() ? JSON.parse(params.value) : {}; } catch { say('The parameters must be JSON.', true); return; }
    try {
      await api('POST', `jobs/${encodeURIComponent(jobs.value)}`, body);
      say(`${jobs.value} started.`);
      await loadRuns();
    } catch (error) {
      say(error.message, true);
    }
  });
  const loadWorkers = async () => {
    const found = await api('GET', 'cloud_code/workers');
    const state = (worker) => worker.connected === null ? 'unknown (broker not reachable)'
      : worker.connected ? `connected (${worker.consumers})` : 'not connected';
    clear(workers).append(
      h('thead', {}, h('tr', {}, ['queue', 'state', 'functions', 'jobs', 'triggers', 'registered'].map((name) => h('th', {}, name)))),
      h('tbody', {}, found.length ? found.map((worker) => h('tr', { dataset: { queue: worker.queue, connected: String(worker.connected) } },
        h('td', {}, worker.queue), h('td', { class: 'worker-state' }, state(worker)), h('td', {}, worker.functions.join(', ')),
        h('td', { class: 'worker-jobs' }, worker.jobs.join(', ')),
        h('td', {}, worker.triggers.map((item) => `${item.triggerName} on ${item.className}`).join(', ')),
        h('td', {}, worker.registeredAt || '')))
        : h('tr', {}, h('td', { class: 'empty', colspan: '6' }, 'No worker has registered. Workers connect over AMQP with the ParseCloud library.'))));
  };
  scheduled = (await schedules.load()).length > 0;
  await Promise.all([loadWorkers(), loadHooks(), loadRuns()]);
}
