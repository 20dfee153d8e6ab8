// The Analytics tab: API requests per hour by route and status, custom events per hour with their dimensions,
// and the app's active users per day with weekly retention, from what posts keeps.
import { api } from './api.js';
import { h } from './dom.js';
import { barChart, hourRange } from './charts.js';

export async function showAnalytics(view) {
  const [requests, events, activity] = await Promise.all([api('GET', 'analytics/requests'), api('GET', 'events'),
    api('GET', 'analytics/active')]);
  showActivity(view, activity);
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

// Users (or installations without a signed-in user) that sent `AppOpened` or another event, per day; and the weekly
// cohorts of those first seen in a week, with how many came back in each following week.
function showActivity(view, activity) {
  view.append(h('h2', {}, 'Active users'),
    h('p', { id: 'active-totals', dataset: { lastDay: activity.lastDay, last7Days: activity.last7Days, last30Days: activity.last30Days } },
      `Last day: ${activity.lastDay}. Last 7 days: ${activity.last7Days}. Last 30 days: ${activity.last30Days}.`),
    h('p', { class: 'hint' }, 'A user, or an installation without a signed-in user, that sent AppOpened (the SDKs send it when the app opens) or another event that day.'));
  const days = activity.days.map((item) => item.day);
  view.append(activity.days.some((item) => item.active > 0)
    ? barChart('active-chart', days, [{ name: 'active', counts: Object.fromEntries(activity.days.map((item) => [item.day, item.active])) }],
      { label: (day) => (day.endsWith('-01') || day === days[0] ? day.slice(5) : day.slice(8)) })
    : h('p', { class: 'hint' }, 'No activity yet.'));
  view.append(h('h2', {}, 'Retention'));
  const weeks = Math.max(0, ...activity.cohorts.map((cohort) => cohort.returned.length));
  view.append(h('table', { id: 'retention', class: 'rows' },
    h('thead', {}, h('tr', {}, h('th', {}, 'first seen in the week of'), h('th', {}, 'new'),
      Array.from({ length: weeks }, (_, index) => h('th', {}, `week ${index + 1}`)))),
    h('tbody', {}, activity.cohorts.length ? activity.cohorts.map((cohort) => h('tr', { dataset: { week: cohort.week, new: cohort.new } },
      h('td', {}, cohort.week), h('td', { class: 'number' }, cohort.new),
      Array.from({ length: weeks }, (_, index) => h('td', { class: 'number' }, index < cohort.returned.length
        ? `${cohort.returned[index]} (${Math.round((100 * cohort.returned[index]) / Math.max(1, cohort.new))}%)` : ''))))
      : h('tr', {}, h('td', { class: 'empty', colspan: 2 }, 'No cohorts yet.')))));
}

function meter(fraction) {
  const bar = h('span', { class: 'meter' });
  bar.style.width = `${Math.round(fraction * 200)}px`;
  return bar;
}
