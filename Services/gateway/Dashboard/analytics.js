// The Analytics tab: API requests per hour by route and status, and custom events per hour with their
// dimensions, from the counts posts keeps.
import { api } from './api.js';
import { h } from './dom.js';
import { barChart, hourRange } from './charts.js';

export async function showAnalytics(view) {
  const [requests, events] = await Promise.all([api('GET', 'analytics/requests'), api('GET', 'events')]);
  view.append(h('h2', {}, 'API requests per hour'));
  const rows = requests.results;
  const hours = hourRange(rows);
  const statusClass = (status) => `${Math.floor(status / 100)}xx`;
  const byStatus = {};
  for (const row of rows) {
    const name = statusClass(row.status);
    (byStatus[name] ||= { name, counts: {} }).counts[row.hour] = (byStatus[name].counts[row.hour] || 0) + row.count;
  }
  view.append(rows.length ? barChart('requests-chart', hours, Object.values(byStatus).sort((a, b) => a.name.localeCompare(b.name)))
    : h('p', { class: 'hint' }, 'No API requests counted yet.'));
  const byRoute = {};
  for (const row of rows) {
    const key = `${row.route} ${row.status}`;
    (byRoute[key] ||= { route: row.route, status: row.status, count: 0 }).count += row.count;
  }
  const routes = Object.values(byRoute).sort((a, b) => b.count - a.count);
  const top = Math.max(1, ...routes.map((item) => item.count));
  view.append(h('table', { id: 'requests-by-route', class: 'rows' },
    h('thead', {}, h('tr', {}, h('th', {}, 'route'), h('th', {}, 'status'), h('th', {}, 'requests'), h('th', {}, ''))),
    h('tbody', {}, routes.map((item) => h('tr', { dataset: { route: item.route, status: item.status } },
      h('td', {}, item.route), h('td', {}, item.status), h('td', { class: 'number' }, item.count),
      h('td', {}, meter(item.count / top)))))));

  view.append(h('h2', {}, 'Custom events per hour'));
  const eventRows = events.results;
  if (!eventRows.length) {
    view.append(h('p', { class: 'hint' }, 'No events yet: clients send them with POST /events/<name>.'));
    return;
  }
  const names = [...new Set(eventRows.map((item) => item.name))].sort();
  view.append(barChart('events-chart', hourRange(eventRows), names.map((name) => ({
    name, counts: Object.fromEntries(eventRows.filter((item) => item.name === name).map((item) => [item.hour, item.count])),
  }))));
  for (const name of names) {
    const dimensions = {};
    for (const item of eventRows.filter((row) => row.name === name)) {
      for (const [dimension, values] of Object.entries(item.dimensions || {})) {
        for (const [value, count] of Object.entries(values)) {
          dimensions[dimension] ||= {};
          dimensions[dimension][value] = (dimensions[dimension][value] || 0) + count;
        }
      }
    }
    const entries = Object.entries(dimensions);
    if (!entries.length) continue;
    view.append(h('h3', {}, `${name} by dimension`), h('table', { class: 'rows', dataset: { event: name } },
      h('thead', {}, h('tr', {}, h('th', {}, 'dimension'), h('th', {}, 'value'), h('th', {}, 'count'))),
      h('tbody', {}, entries.flatMap(([dimension, values]) => Object.entries(values).map(([value, count]) =>
        h('tr', {}, h('td', {}, dimension), h('td', {}, value), h('td', { class: 'number' }, count)))))));
  }
}

function meter(fraction) {
  const bar = h('span', { class: 'meter' });
  bar.style.width = `${Math.round(fraction * 200)}px`;
  return bar;
}
