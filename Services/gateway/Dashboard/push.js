// The Push tab: a notification to channels or to a query over installations, and the pushes sent so far
// (`_PushStatus`).
import { api } from './api.js';
import { h, say } from './dom.js';

export async function showPush(view) {
  const audience = h('select', { id: 'push-audience' }, h('option', { value: 'channels' }, 'Channels'),
    h('option', { value: 'where' }, 'Query over installations'));
  const channels = h('input', { id: 'push-channels', placeholder: 'news, cats' });
  const where = h('textarea', { id: 'push-where', rows: 3, placeholder: '{"deviceType":"ios"}', hidden: true });
  audience.addEventListener('change', () => {
    channels.hidden = audience.value !== 'channels';
    where.hidden = audience.value !== 'where';
  });
  const alert = h('input', { id: 'push-alert', placeholder: 'Message', required: true });
  const form = h('form', { id: 'push-form', class: 'card' }, h('h2', {}, 'Send a push'),
    h('label', {}, 'Audience ', audience), channels, where, h('label', {}, 'Message ', alert),
    h('button', { id: 'push-send', type: 'submit' }, 'Send'));
  const statuses = h('div', { id: 'push-statuses' });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { data: { alert: alert.value } };
    try {
      if (audience.value === 'channels') {
        body.channels = channels.value.split(',').map((part) => part.trim()).filter(Boolean);
      } else {
        body.where = JSON.parse(where.value || '{}');
      }
    } catch {
      say('The query must be JSON.', true);
      return;
    }
    try {
      await api('POST', 'push', body);
      say('Push sent.');
      alert.value = '';
      await listStatuses(statuses);
    } catch (error) {
      say(error.message, true);
    }
  });
  view.append(form, h('h2', {}, 'Past pushes'), statuses);
  await listStatuses(statuses);
}

async function listStatuses(container) {
  const { results } = await api('GET', 'classes/_PushStatus', undefined, { order: '-createdAt', limit: 50 });
  const table = h('table', { id: 'push-status', class: 'rows' },
    h('thead', {}, h('tr', {}, ['sent', 'status', 'audience', 'message', 'sent to', 'failed'].map((name) => h('th', {}, name)))),
    h('tbody', {}, results.map((row) => h('tr', { dataset: { objectId: row.objectId } },
      h('td', {}, row.createdAt), h('td', {}, row.status || ''), h('td', {}, audienceText(row)),
      h('td', {}, messageText(row)), h('td', { class: 'number' }, row.numSent ?? 0), h('td', { class: 'number' }, row.numFailed ?? 0)))));
  container.replaceChildren(table);
}

function parsed(value) {
  if (typeof value !== 'string') return value;
  try { return JSON.parse(value); } catch { return value; }
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
