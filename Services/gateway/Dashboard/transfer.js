// Import of a Parse JSON export (`{"results":[...]}` or a bare array) through /batch, with progress and the
// rows refused; export of a class as the same format.
import { api, session } from './api.js';
import { clear, h, say } from './dom.js';

const BATCH = 50;

export async function importInto(className, file, progress, report) {
  clear(report);
  let rows;
  try {
    const parsed = JSON.parse(await file.text());
    rows = Array.isArray(parsed) ? parsed : parsed && parsed.results;
  } catch {
    rows = null;
  }
  if (!Array.isArray(rows)) {
    report.append(h('p', { class: 'error' }, `${file.name} is not a Parse export ({"results":[...]} or a list of objects).`));
    return;
  }
  progress.hidden = false;
  progress.max = rows.length || 1;
  progress.value = 0;
  const refused = [];
  let imported = 0;
  const mount = session().mountPath === '/' ? '' : session().mountPath;
  for (let start = 0; start < rows.length; start += BATCH) {
    const chunk = rows.slice(start, start + BATCH);
    const requests = [];
    const indexes = [];
    chunk.forEach((row, offset) => {
      if (!row || typeof row !== 'object' || Array.isArray(row)) {
        refused.push({ index: start + offset, error: 'not an object' });
        return;
      }
      requests.push({ method: 'POST', path: `${mount}/classes/${className}`, body: row });
      indexes.push(start + offset);
    });
    if (requests.length) {
      try {
        const answers = await api('POST', 'batch', { requests });
        answers.forEach((answer, position) => {
          if (answer.success) imported += 1;
          else refused.push({ index: indexes[position], objectId: chunk[indexes[position] - start].objectId,
            error: answer.error ? `${answer.error.code}: ${answer.error.error}` : 'refused' });
        });
      } catch (error) {
        for (const index of indexes) refused.push({ index, objectId: rows[index].objectId, error: error.message });
      }
    }
    progress.value = Math.min(rows.length, start + chunk.length);
    say(`Importing into ${className}: ${progress.value} of ${rows.length}`);
  }
  const summary = h('p', { id: 'import-summary' }, `Imported ${imported} of ${rows.length} rows into ${className}; ${refused.length} refused.`);
  report.append(summary);
  if (refused.length) {
    report.append(h('table', { id: 'import-refused', class: 'rows' },
      h('thead', {}, h('tr', {}, h('th', {}, 'row'), h('th', {}, 'objectId'), h('th', {}, 'why'))),
      h('tbody', {}, refused.map((item) => h('tr', {}, h('td', {}, item.index + 1), h('td', {}, item.objectId || ''), h('td', {}, item.error))))));
  }
  say(summary.textContent, refused.length > 0);
}

export async function exportClass(className, report) {
  const results = [];
  let lastId = null;
  // Paged by objectId rather than skip, so a large class costs the same per page to the end.
  for (;;) {
    const query = { limit: 1000, order: 'objectId' };
    if (lastId) query.where = { objectId: { $gt: lastId } };
    const page = await api('GET', `classes/${encodeURIComponent(className)}`, undefined, query);
    results.push(...page.results);
    say(`Exporting ${className}: ${results.length} rows`);
    if (page.results.length < 1000) break;
    lastId = page.results[page.results.length - 1].objectId;
  }
  const blob = new Blob([JSON.stringify({ results }, null, 2)], { type: 'application/json' });
  const link = h('a', { id: 'export-link', href: URL.createObjectURL(blob), download: `${className}.json` }, `${className}.json (${results.length} rows)`);
  clear(report).append(h('p', {}, 'Export ready: ', link));
  link.click();
  say(`Exported ${results.length} rows of ${className}.`);
}
