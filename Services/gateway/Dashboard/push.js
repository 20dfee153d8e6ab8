// The Push tab: a notification to everyone, to channels, to a query over installations or to a saved audience
// (`_Audience`), with the count of devices it reaches before it is sent; its message as text or as a JSON payload;
// sent now or at a time (in this browser's zone, in UTC, or on each device's clock), with an expiration. Below, the pushes sent so far (`_PushStatus`), each with a status
// read from its counts and the reasons devices failed.
import { api } from './api.js';
import { attempt, h, say } from './dom.js';

export async function showPush(view) {
  const form = pushForm();
  const statuses = h('div', { id: 'push-statuses' });
  form.element.addEventListener('submit', async (event) => {
    event.preventDefault();
    let body;
    try {
      body = form.body();
    } catch (error) {
      say(error.message, true);
      return;
    }
    if (await attempt(() => api('POST', 'push', body), body.push_time ? 'Push scheduled.' : 'Push sent.')) {
      form.sent();
      await listStatuses(statuses);
    }
  });
  view.append(form.element, h('h2', {}, 'Past pushes'), statuses);
  await Promise.all([form.loadAudiences(), listStatuses(statuses)]);
}

function pushForm() {
  const audience = h('select', { id: 'push-audience' }, h('option', { value: 'everyone' }, 'Everyone'),
    h('option', { value: 'channels' }, 'Channels'), h('option', { value: 'where' }, 'Query over installations'));
  const channels = h('input', { id: 'push-channels', placeholder: 'news, cats' });
  const where = h('textarea', { id: 'push-where', rows: 3, placeholder: '{"deviceType":"ios"}' });
  const audienceName = h('input', { id: 'push-audience-name', placeholder: 'Name' });
  const saveAudience = h('button', { id: 'push-save-audience', type: 'button' }, 'Save as audience');
  const reach = h('span', { id: 'push-reach', class: 'hint' });
  const saved = new Map();

  const format = h('select', { id: 'push-format' }, h('option', { value: 'text' }, 'Message'),
    h('option', { value: 'json' }, 'JSON payload'));
  const alert = h('input', { id: 'push-alert', placeholder: 'Message' });
  const title = h('input', { id: 'push-title', placeholder: 'Title (optional)' });
  const badge = h('input', { id: 'push-badge', type: 'checkbox' });
  const payload = h('textarea', { id: 'push-payload', rows: 5, placeholder: '{"alert":"Hello","sound":"default"}' });

  const timing = h('select', { id: 'push-timing' }, h('option', { value: 'now' }, 'Now'),
    h('option', { value: 'at' }, 'At a time (this browser\'s time zone)'),
    h('option', { value: 'utc' }, 'At a time (UTC)'), h('option', { value: 'device' }, 'At a time on each device\'s clock'));
  const pushTime = h('input', { id: 'push-time', type: 'datetime-local' });
  const expiry = h('select', { id: 'push-expiry' }, h('option', { value: 'never' }, 'Never'),
    h('option', { value: 'at' }, 'At a time'), h('option', { value: 'after' }, 'After a number of seconds'));
  const expiryTime = h('input', { id: 'push-expiry-time', type: 'datetime-local' });
  const expiryInterval = h('input', { id: 'push-expiry-interval', type: 'number', min: 1, placeholder: '3600' });

  const textFields = h('div', { class: 'inline' }, h('label', {}, 'Message ', alert), title,
    h('label', {}, badge, ' increment the badge'));
  const element = h('form', { id: 'push-form', class: 'card' }, h('h2', {}, 'Send a push'),
    h('label', {}, 'Audience ', audience), channels, where,
    h('div', { class: 'inline' }, audienceName, saveAudience), reach,
    h('label', {}, 'Content ', format), textFields, payload,
    h('label', {}, 'Send ', timing), pushTime,
    h('label', {}, 'Expires ', expiry), expiryTime, expiryInterval,
    h('button', { id: 'push-send', type: 'submit' }, 'Send'));

  function show() {
    channels.hidden = audience.value !== 'channels';
    where.hidden = audience.value !== 'where';
    audienceName.parentElement.hidden = audience.value !== 'where';
    textFields.hidden = format.value !== 'text';
    payload.hidden = format.value !== 'json';
    pushTime.hidden = timing.value === 'now';
    expiryTime.hidden = expiry.value !== 'at';
    expiryInterval.hidden = expiry.value !== 'after';
  }

  // The installations the chosen audience reaches; throws a message a person can act on.
  function query() {
    switch (audience.value) {
      case 'everyone': return {};
      case 'channels': {
        const names = channels.value.split(',').map((part) => part.trim()).filter(Boolean);
        if (!names.length) throw new Error('Name at least one channel.');
        return { channels: { $in: names } };
      }
      case 'where': {
        let value;
        try { value = JSON.parse(where.value || '{}'); } catch { throw new Error('The query must be JSON.'); }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('The query must be a JSON object.');
        return value;
      }
      default: return saved.get(audience.value).query || {};
    }
  }

  function data() {
    if (format.value === 'json') {
      let value;
      try { value = JSON.parse(payload.value); } catch { throw new Error('The payload must be JSON.'); }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('The payload must be a JSON object.');
      return value;
    }
    if (!alert.value.trim()) throw new Error('Write a message.');
    const fields = { alert: alert.value };
    if (title.value.trim()) fields.title = title.value;
    if (badge.checked) fields.badge = 'Increment';
    return fields;
  }

  // A `datetime-local` value read in the browser's zone or as UTC, as a date with its zone.
  function moment(input, utc, what) {
    if (!input.value) throw new Error(`Choose ${what}.`);
    const date = new Date(utc ? input.value + 'Z' : input.value);
    if (Number.isNaN(date.getTime())) throw new Error(`${what} is not a date.`);
    return date;
  }

  let counting = 0;
  async function countReach() {
    const ticket = ++counting;
    let where;
    try { where = query(); } catch (error) { reach.textContent = error.message; return; }
    try {
      const answer = await api('GET', 'classes/_Installation', undefined, { where, count: 1, limit: 0 });
      if (ticket === counting) reach.textContent = `Reaches ${answer.count} device${answer.count === 1 ? '' : 's'}.`;
    } catch (error) {
      if (ticket === counting) reach.textContent = error.message;
    }
  }

  async function loadAudiences() {
    const { results } = await api('GET', 'push_audiences');
    for (const option of [...audience.options].filter((item) => item.value.startsWith('audience:'))) option.remove();
    saved.clear();
    for (const item of results) {
      saved.set('audience:' + item.objectId, item);
      audience.append(h('option', { value: 'audience:' + item.objectId }, `Audience: ${item.name}`));
    }
  }

  saveAudience.addEventListener('click', async () => {
    let where;
    try {
      if (!audienceName.value.trim()) throw new Error('Name the audience.');
      where = query();
    } catch (error) {
      say(error.message, true);
      return;
    }
    const name = audienceName.value.trim();
    if (await attempt(() => api('POST', 'push_audiences', { name, query: JSON.stringify(where) }), `Audience ${name} saved.`)) {
      await loadAudiences();
      audienceName.value = '';
    }
  });
  for (const control of [audience, format, timing, expiry]) control.addEventListener('change', show);
  audience.addEventListener('change', countReach);
  channels.addEventListener('input', countReach);
  where.addEventListener('input', countReach);
  show();
  countReach();

  return {
    element,
    loadAudiences,
    body() {
      const body = { where: query(), data: data() };
      if (audience.value.startsWith('audience:')) body.audience_id = audience.value.slice('audience:'.length);
      if (timing.value === 'device') {
        // No zone: each device gets it when its own time zone reaches this time.
        if (!pushTime.value) throw new Error('Choose the time to send.');
        body.push_time = `${pushTime.value}:00.000`;
      } else if (timing.value !== 'now') {
        const at = moment(pushTime, timing.value === 'utc', 'the time to send');
        if (at.getTime() <= Date.now()) throw new Error('The time to send has passed.');
        body.push_time = at.toISOString();
      }
      if (expiry.value === 'at') {
        const at = moment(expiryTime, false, 'the expiration time');
        if (at.getTime() <= (body.push_time ? Date.parse(body.push_time) : Date.now())) {
          throw new Error('The push would expire before it is sent.');
        }
        body.expiration_time = at.toISOString();
      } else if (expiry.value === 'after') {
        const seconds = Number(expiryInterval.value);
        if (!Number.isInteger(seconds) || seconds <= 0) throw new Error('The expiration is a whole number of seconds above 0.');
        body.expiration_interval = seconds;
      }
      return body;
    },
    sent() {
      alert.value = '';
      title.value = '';
    },
  };
}

async function listStatuses(container) {
  const { results } = await api('GET', 'classes/_PushStatus', undefined, { order: '-createdAt', limit: 50 });
  const table = h('table', { id: 'push-status', class: 'rows' },
    h('thead', {}, h('tr', {}, ['created', 'send at', 'status', 'audience', 'message', 'sent to', 'failed', 'why']
      .map((name) => h('th', {}, name)))),
    h('tbody', {}, results.map((row) => h('tr', { dataset: { objectId: row.objectId, status: statusOf(row) } },
      h('td', {}, row.createdAt), h('td', {}, timeText(row.pushTime)), h('td', { class: 'push-state' }, statusOf(row)),
      h('td', {}, audienceText(row)), h('td', {}, messageText(row)),
      h('td', { class: 'number' }, row.numSent ?? 0), h('td', { class: 'number' }, row.numFailed ?? 0),
      h('td', { class: 'push-why' }, reasonsText(row))))));
  container.replaceChildren(table);
}

// parse-server calls a push `succeeded` once every device is accounted for, however many failed; the page says
// what the counts say.
function statusOf(row) {
  if (row.status !== 'succeeded') return row.status || '';
  const sent = row.numSent ?? 0;
  const failed = row.numFailed ?? 0;
  if (failed > 0 && sent === 0) return 'failed';
  if (failed > 0) return 'partly failed';
  if (sent === 0) return 'reached no device';
  return 'succeeded';
}

function parsed(value) {
  if (typeof value !== 'string') return value;
  try { return JSON.parse(value); } catch { return value; }
}

function timeText(value) {
  if (!value) return '';
  const text = typeof value === 'string' ? value : value.iso;
  return text && !/Z$|[+-]\d\d:\d\d$/.test(text) ? text + ' (device time)' : text;
}

function audienceText(row) {
  const query = parsed(row.query);
  if (query && query.channels) return 'channels: ' + JSON.stringify(query.channels);
  return JSON.stringify(query || {});
}

function messageText(row) {
  const payload = parsed(row.payload);
  return payload && payload.alert !== undefined ? String(payload.alert) : JSON.stringify(payload || {});
}

// `errorMessage`: the adapters' reasons with their counts (`failures`), or parse-server's error of a push that failed.
function reasonsText(row) {
  const error = parsed(row.errorMessage);
  if (!error) return '';
  if (Array.isArray(error.failures)) return error.failures.map((item) => `${item.reason} (${item.count})`).join('; ');
  return typeof error === 'object' ? JSON.stringify(error) : String(error);
}
