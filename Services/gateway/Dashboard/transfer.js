// Import of a Parse JSON export (`{"results":[...]}` or a bare array) or of a CSV file (a header row of field
// names, values read by the class's field types) through /batch, with progress and the rows refused; export of a
// class as the same JSON and as CSV.
import { api, session } from './api.js';
import { clear, h, say } from './dom.js';

const BATCH = 50;

export async function importInto(className, file, progress, report, schema) {
  clear(report);
  let rows;
  const isCSV = /\.csv$/i.test(file.name) || file.type === 'text/csv';
  try {
    if (isCSV) {
      rows = csvObjects(await file.text(), (schema && schema.fields) || {});
    } else {
      const parsed = JSON.parse(await file.text());
      rows = Array.isArray(parsed) ? parsed : parsed && parsed.results;
    }
  } catch (error) {
    rows = isCSV ? error : null;
  }
  if (rows instanceof Error) {
    report.append(h('p', { class: 'error' }, `${file.name}: ${rows.message}`));
    return;
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

// Every object of the class, paged by objectId rather than skip, so a large class costs the same per page to the end.
export async function allObjects(className) {
  const results = [];
  let lastId = null;
  for (;;) {
    const query = { limit: 1000, order: 'objectId' };
    if (lastId) query.where = { objectId: { $gt: lastId } };
    const page = await api('GET', `classes/${encodeURIComponent(className)}`, undefined, query);
    results.push(...page.results);
    say(`Exporting ${className}: ${results.length} rows`);
    if (page.results.length < 1000) return results;
    lastId = page.results[page.results.length - 1].objectId;
  }
}

export async function exportClass(className, report) {
  const results = await allObjects(className);
  const blob = new Blob([JSON.stringify({ results }, null, 2)], { type: 'application/json' });
  const link = h('a', { id: 'export-link', href: URL.createObjectURL(blob), download: `${className}.json` }, `${className}.json (${results.length} rows)`);
  const csv = new Blob([toCSV(results)], { type: 'text/csv' });
  const csvLink = h('a', { id: 'export-csv-link', href: URL.createObjectURL(csv), download: `${className}.csv` }, `${className}.csv`);
  clear(report).append(h('p', {}, 'Export ready: ', link, ' ', csvLink));
  link.click();
  say(`Exported ${results.length} rows of ${className}.`);
}

// RFC 4180: a header row of every field, then one row per object; strings as they are, dates as their ISO time,
// every other value as JSON, so an import reads them back by the class's field types.
export function toCSV(objects) {
  const first = ['objectId', 'createdAt', 'updatedAt'];
  const names = [...new Set(objects.flatMap((object) => Object.keys(object)))]
    .sort((a, b) => (first.indexOf(a) + 1 || 99) - (first.indexOf(b) + 1 || 99) || a.localeCompare(b));
  const cell = (value) => {
    if (value === undefined || value === null) return '';
    const text = typeof value === 'string' ? value
      : value && value.__type === 'Date' ? value.iso : JSON.stringify(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [names.map(cell).join(','), ...objects.map((object) => names.map((name) => cell(object[name])).join(','))]
    .join('\r\n') + '\r\n';
}

// The rows of a CSV text (RFC 4180 quoting), as objects keyed by its header; empty cells are left out.
export function csvObjects(text, fields) {
  const records = [];
  let record = [], value = '', quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') { value += '"'; index += 1; }
      else if (character === '"') quoted = false;
      else value += character;
    } else if (character === '"' && value === '') quoted = true;
    else if (character === ',') { record.push(value); value = ''; }
    else if (character === '\n' || character === '\r') {
      if (character === '\r' && text[index + 1] === '\n') index += 1;
      record.push(value);
      records.push(record);
      record = [];
      value = '';
    } else value += character;
  }
  if (quoted) throw new Error('a quoted value is not closed.');
  if (value !== '' || record.length) { record.push(value); records.push(record); }
  const rows = records.filter((item) => item.some((cell) => cell !== ''));
  if (!rows.length) throw new Error('no header row.');
  const [header, ...body] = rows;
  return body.map((cells, line) => {
    const object = {};
    header.forEach((name, column) => {
      const cell = cells[column];
      if (cell === undefined || cell === '') return;
      object[name] = typedValue(cell, fields[name], name, line + 2);
    });
    return object;
  });
}

function typedValue(cell, field, name, line) {
  const type = field ? field.type : 'String';
  const fail = (what) => { throw new Error(`line ${line}, ${name}: ${what}`); };
  switch (type) {
    case 'String': return cell;
    case 'Number': {
      const number = Number(cell);
      if (!Number.isFinite(number)) fail('not a number');
      return number;
    }
    case 'Boolean':
      if (cell !== 'true' && cell !== 'false') fail('not true or false');
      return cell === 'true';
    case 'Date': {
      const date = new Date(cell);
      if (Number.isNaN(date.getTime())) fail('not a date');
      return { __type: 'Date', iso: date.toISOString() };
    }
    default:
      try { return JSON.parse(cell); } catch { return fail(`not JSON for a ${type}`); }
  }
}
