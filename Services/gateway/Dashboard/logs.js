// The Logs tab: the server's log lines from every process (GET /scriptlog), newest first, all levels or errors
// only, narrowed by a search over each line's text.
import { api } from './api.js';
import { h, clear } from './dom.js';

export async function showLogs(view) {
  const level = h('select', { id: 'logs-level' }, h('option', { value: 'info' }, 'all levels'), h('option', { value: 'error' }, 'errors'));
  const search = h('input', { id: 'logs-search', type: 'search', placeholder: 'search' });
  const size = h('input', { id: 'logs-size', type: 'number', value: '200', min: '1', max: '10000' });
  const table = h('table', { id: 'logs', class: 'rows' });
  const form = h('form', { id: 'logs-form', class: 'toolbar' }, h('h2', {}, 'Logs'), level, search, size,
    h('button', { type: 'submit' }, 'Refresh'));
  view.append(form, table);
  let lines = [];
  const render = () => {
    const wanted = search.value.trim().toLowerCase();
    const shown = wanted ? lines.filter((line) => JSON.stringify(line).toLowerCase().includes(wanted)) : lines;
    clear(table).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'time'), h('th', {}, 'level'), h('th', {}, 'service'), h('th', {}, 'message'))),
      h('tbody', {}, shown.length ? shown.map((line) => h('tr', { class: `level-${line.level}`, title: JSON.stringify(line, null, 2) },
        h('td', {}, line.timestamp), h('td', {}, line.level), h('td', {}, line.service || ''), h('td', {}, line.message)))
        : h('tr', {}, h('td', { class: 'empty', colspan: '4' }, 'No log lines.'))));
  };
  const load = async () => {
    lines = await api('GET', 'scriptlog', undefined, { level: level.value, size: size.value, order: 'desc' });
    render();
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    await load();
  });
  search.addEventListener('input', render);
  level.addEventListener('change', load);
  await load();
}
