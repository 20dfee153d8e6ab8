// Small SVG charts: bars per hour, stacked by series, with a legend.
import { h, svg } from './dom.js';

const COLORS = ['#169cee', '#e36d3d', '#59b36d', '#b668c9', '#e8b41c', '#6c7a89', '#d9466b', '#2bb3a3'];

export function colorOf(index) { return COLORS[index % COLORS.length]; }

// `hours`: sorted ISO hour strings (or any sorted keys, with `label` to write each under its bar); `series`:
// [{name, counts: {hour: n}}].
export function barChart(id, hours, series, { width = 760, height = 220, label = (hour) => hour.slice(11, 13) + 'h' } = {}) {
  const left = 40, bottom = 40, top = 10;
  const totals = hours.map((hour) => series.reduce((sum, item) => sum + (item.counts[hour] || 0), 0));
  const maximum = Math.max(1, ...totals);
  const slot = (width - left - 10) / Math.max(1, hours.length);
  const scale = (height - bottom - top) / maximum;
  const chart = svg('svg', { id, class: 'chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img' });
  chart.append(svg('line', { x1: left, y1: height - bottom, x2: width - 10, y2: height - bottom, class: 'axis' }));
  chart.append(svg('text', { x: left - 4, y: top + 10, 'text-anchor': 'end', class: 'tick' }, String(maximum)));
  chart.append(svg('text', { x: left - 4, y: height - bottom, 'text-anchor': 'end', class: 'tick' }, '0'));
  hours.forEach((hour, index) => {
    let y = height - bottom;
    series.forEach((item, seriesIndex) => {
      const count = item.counts[hour] || 0;
      if (!count) return;
      const barHeight = count * scale;
      y -= barHeight;
      chart.append(svg('rect', {
        x: left + index * slot + 2, y, width: Math.max(2, slot - 4), height: barHeight, fill: colorOf(seriesIndex),
        class: 'bar', 'data-series': item.name, 'data-hour': hour, 'data-count': count,
      }, svg('title', {}, `${item.name} ${hour}: ${count}`)));
    });
    chart.append(svg('text', { x: left + index * slot + slot / 2, y: height - bottom + 14, 'text-anchor': 'middle', class: 'tick' },
      label(hour)));
    chart.append(svg('text', { x: left + index * slot + slot / 2, y: top + (height - bottom - top) - totals[index] * scale - 2,
      'text-anchor': 'middle', class: 'tick' }, totals[index] ? String(totals[index]) : ''));
  });
  const legend = h('ul', { class: 'legend' }, series.map((item, index) =>
    h('li', {}, h('span', { class: `swatch swatch-${index % COLORS.length}` }), item.name)));
  return h('figure', { class: 'figure' }, chart, legend);
}

// The last 24 hours, and any older hour the counts hold, in order.
export function hourRange(items) {
  const now = Math.floor(Date.now() / 3600000) * 3600000;
  const hours = new Set(Array.from({ length: 24 }, (_, index) => new Date(now - (23 - index) * 3600000).toISOString()));
  for (const item of items) hours.add(item.hour);
  return [...hours].sort();
}
