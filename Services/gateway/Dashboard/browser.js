// The data browser of one class: a page of rows with sorting, a filter on one field, cells edited in place
// with type checks, rows added and deleted, columns added and removed; import, export and permissions below.
import { api, uploadFile } from './api.js';
import { clear, h, say } from './dom.js';
import { COLUMN_TYPES, TypeMismatch, editText, parseInput, renderValue } from './values.js';
import { exportClass, importInto } from './transfer.js';
import { showPermissions } from './permissions.js';
import { showIndexes } from './indexes.js';
import { showRelation } from './relation.js';
import { watchClass } from './live.js';

const PAGE = 100;
const LAST = ['createdAt', 'updatedAt', 'ACL'];

// The schema's fields, and any field a row has beyond them (users' and roles' own fields have no schema).
function columnsOf(schema, rows = []) {
  const names = Object.keys(schema.fields).filter((name) => name !== 'objectId' && !LAST.includes(name) && name !== 'password');
  for (const row of rows) {
    for (const name of Object.keys(row)) {
      if (!names.includes(name) && name !== 'objectId' && !LAST.includes(name) && name !== 'sessionToken') names.push(name);
    }
  }
  return ['objectId', ...names, ...LAST.filter((name) => schema.fields[name])];
}

function inferredField(value) {
  if (value && typeof value === 'object') {
    if (value.__type === 'Pointer') return { type: 'Pointer', targetClass: value.className };
    if (value.__type) return { type: value.__type };
    return { type: Array.isArray(value) ? 'Array' : 'Object' };
  }
  return { type: typeof value === 'number' ? 'Number' : typeof value === 'boolean' ? 'Boolean' : 'String' };
}

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const FILTERS = {
  eq: (value) => value, ne: (value) => ({ $ne: value }), lt: (value) => ({ $lt: value }), gt: (value) => ({ $gt: value }),
  lte: (value) => ({ $lte: value }), gte: (value) => ({ $gte: value }), in: (values) => ({ $in: values }),
  contains: (value) => ({ $regex: escaped(value) }), 'starts with': (value) => ({ $regex: `^${escaped(value)}` }),
  exists: (value) => ({ $exists: value !== false }),
};

export async function showBrowser(container, initialSchema, objectId) {
  const started = performance.now();
  const path = `classes/${encodeURIComponent(initialSchema.className)}`;
  const state = { schema: initialSchema, order: null, skip: 0, where: objectId ? { objectId } : {}, rows: [], live: null };
  const className = state.schema.className;
  const table = h('table', { id: 'rows', class: 'rows', dataset: { className } });
  const pager = h('span', { id: 'pager' });
  const liveState = h('span', { id: 'live-state', class: 'live' });
  const report = h('div', { id: 'import-report', class: 'report' });
  const panel = h('div', { id: 'panel' });

  async function reloadSchema() {
    state.schema = await api('GET', `schemas/${encodeURIComponent(className)}`);
  }

  // Loads can overlap (Refresh, then a sort before its answer): only the latest one's rows are shown.
  let latestLoad = 0;

  async function load() {
    const query = { limit: PAGE, skip: state.skip || undefined };
    if (state.order) query.order = state.order;
    if (Object.keys(state.where).length) query.where = state.where;
    const thisLoad = ++latestLoad;
    const { results } = await api('GET', path, undefined, query);
    if (thisLoad !== latestLoad) return;
    state.rows = results;
    render();
    if (!table.dataset.loadedMs) table.dataset.loadedMs = String(Math.round(performance.now() - started));
    const countQuery = { count: 1, limit: 0 };
    if (query.where) countQuery.where = query.where;
    api('GET', path, undefined, countQuery).then(({ count }) => {
      if (thisLoad !== latestLoad) return;
      pager.textContent = count === 0 ? 'no rows' : `rows ${state.skip + 1}-${state.skip + results.length} of ${count}`;
      pager.dataset.count = count;
      const sidebarCount = document.querySelector(`#classes .count[data-class-name="${CSS.escape(className)}"]`);
      if (sidebarCount && !query.where) sidebarCount.textContent = count;
    }).catch(() => {});
  }

  function fieldOf(name) {
    if (state.schema.fields[name]) return state.schema.fields[name];
    const row = state.rows.find((item) => item[name] !== undefined && item[name] !== null);
    return inferredField(row && row[name]);
  }

  function render() {
    clear(table);
    const columns = columnsOf(state.schema, state.rows);
    const head = h('tr', {}, h('th', { class: 'select' }, ''));
    for (const name of columns) {
      const field = fieldOf(name);
      const arrow = state.order === name ? ' ▲' : state.order === '-' + name ? ' ▼' : '';
      head.append(h('th', {
        dataset: { field: name }, title: 'Sort',
        onclick: () => {
          state.order = state.order === name ? '-' + name : state.order === '-' + name ? null : name;
          state.skip = 0;
          load().catch((error) => say(error.message, true));
        },
      }, name, h('small', {}, ' ' + (field.type === 'Pointer' || field.type === 'Relation' ? `${field.type}<${field.targetClass}>` : field.type)), arrow));
    }
    const body = h('tbody');
    for (const row of state.rows) {
      const tr = h('tr', { dataset: { objectId: row.objectId } },
        h('td', { class: 'select' }, h('input', { type: 'checkbox', class: 'row-select', value: row.objectId })));
      for (const name of columns) tr.append(cell(row, name));
      body.append(tr);
    }
    table.append(h('thead', {}, head), body);
  }

  function cell(row, name) {
    const field = fieldOf(name);
    const td = h('td', { dataset: { field: name, objectId: row.objectId } }, renderValue(row[name], field));
    if (field.type === 'Relation') {
      td.classList.add('opens');
      td.addEventListener('click', () => run(() => showRelation(panel, {
        className, objectId: row.objectId, key: name, targetClass: field.targetClass,
      })));
      return td;
    }
    if (['objectId', 'createdAt', 'updatedAt'].includes(name)) return td;
    td.addEventListener('dblclick', () => (field.type === 'File' ? pickFile(row, name) : edit(td, row, name)));
    return td;
  }

  function edit(td, row, name) {
    if (td.querySelector('.cell-editor')) return;
    const field = fieldOf(name);
    const input = h('input', { class: 'cell-editor', value: editText(row[name]) });
    clear(td).append(input);
    input.focus();
    input.select();
    input.addEventListener('keydown', async (event) => {
      if (event.key === 'Escape') { clear(td).append(renderValue(row[name], field)); return; }
      if (event.key !== 'Enter') return;
      let value;
      try {
        value = parseInput(input.value, name, field);
      } catch (error) {
        if (!(error instanceof TypeMismatch)) throw error;
        input.classList.add('invalid');
        say(error.message, true);
        return;
      }
      try {
        await api('PUT', `${path}/${encodeURIComponent(row.objectId)}`, { [name]: value });
        row[name] = value && value.__op === 'Delete' ? undefined : value;
        clear(td).append(renderValue(row[name], field));
        say(`Saved ${name} of ${row.objectId}.`);
      } catch (error) {
        input.classList.add('invalid');
        say(error.message, true);
      }
    });
  }

  function pickFile(row, name) {
    const input = h('input', { type: 'file', class: 'file-picker' });
    input.addEventListener('change', async () => {
      const file = input.files[0];
      if (!file) return;
      try {
        const stored = await uploadFile(file.name, file);
        await api('PUT', `${path}/${encodeURIComponent(row.objectId)}`, { [name]: { __type: 'File', name: stored.name } });
        await load();
      } catch (error) {
        say(error.message, true);
      }
    });
    input.click();
  }

  function selected() {
    return [...table.querySelectorAll('.row-select:checked')].map((box) => box.value);
  }

  async function run(action) {
    try {
      await action();
    } catch (error) {
      say(error.message, true);
    }
  }

  const columnName = h('input', { id: 'add-column-name', placeholder: 'column', pattern: '[A-Za-z][A-Za-z0-9_]*', required: true });
  const columnType = h('select', { id: 'add-column-type' }, COLUMN_TYPES.map((type) => h('option', { value: type }, type)));
  const columnTarget = h('input', { id: 'add-column-target', placeholder: 'target class', hidden: true });
  columnType.addEventListener('change', () => { columnTarget.hidden = !['Pointer', 'Relation'].includes(columnType.value); });
  const addColumn = h('form', { id: 'add-column', class: 'inline' }, columnName, columnType, columnTarget,
    h('button', { id: 'add-column-submit', type: 'submit' }, '+ Col'));
  addColumn.addEventListener('submit', (event) => {
    event.preventDefault();
    run(async () => {
      const field = { type: columnType.value };
      if (!columnTarget.hidden) field.targetClass = columnTarget.value;
      await api('PUT', `schemas/${encodeURIComponent(className)}`, { className, fields: { [columnName.value]: field } });
      say(`Added column ${columnName.value} (${columnType.value}).`);
      columnName.value = '';
      await reloadSchema();
      render();
      refreshColumnChoices();
    });
  });

  const removable = h('select', { id: 'delete-column' });
  const filterField = h('select', { id: 'filter-field' });
  function refreshColumnChoices() {
    clear(removable);
    clear(filterField);
    for (const name of columnsOf(state.schema)) {
      filterField.append(h('option', { value: name }, name));
      if (!['objectId', 'createdAt', 'updatedAt', 'ACL'].includes(name)) removable.append(h('option', { value: name }, name));
    }
  }
  refreshColumnChoices();
  const removeColumn = h('button', {
    id: 'delete-column-submit', type: 'button',
    onclick: () => run(async () => {
      if (!removable.value || !confirm(`Delete column ${removable.value} and its values?`)) return;
      await api('PUT', `schemas/${encodeURIComponent(className)}`, { className, fields: { [removable.value]: { __op: 'Delete' } } });
      await reloadSchema();
      refreshColumnChoices();
      await load();
    }),
  }, 'Delete column');

  const filterOp = h('select', { id: 'filter-op' }, Object.keys(FILTERS).map((op) => h('option', { value: op }, op)));
  const filterValue = h('input', { id: 'filter-value', placeholder: 'value (in: a, b, c)' });
  // Conditions kept with "+ condition", joined by all of / any of with the one in the fields when applied.
  const conditions = [];
  const filterMode = h('select', { id: 'filter-mode' }, h('option', { value: '$and' }, 'all of'), h('option', { value: '$or' }, 'any of'));
  const kept = h('span', { id: 'filter-conditions' });
  const showKept = () => clear(kept).append(conditions.map((item) => h('span', { class: 'chip' }, item.text)));
  // The condition in the fields, or null when its value is empty.
  function currentCondition() {
    const name = filterField.value;
    const field = fieldOf(name);
    const op = filterOp.value;
    const text = filterValue.value;
    if (text === '' && op !== 'exists') return null;
    let value;
    if (op === 'exists') value = text !== 'false';
    else if (op === 'contains' || op === 'starts with') value = text;
    else if (op === 'in') value = text.split(',').map((part) => parseInput(part.trim(), name, field));
    else value = parseInput(text, name, field);
    return { text: `${name} ${op} ${text}`, clause: { [name]: FILTERS[op](value) } };
  }
  const filter = h('form', { id: 'filter', class: 'inline' }, 'Filter ', filterMode, kept, filterField, filterOp, filterValue,
    h('button', { id: 'filter-add', type: 'button', onclick: () => run(async () => {
      const condition = currentCondition();
      if (!condition) return;
      conditions.push(condition);
      filterValue.value = '';
      showKept();
    }) }, '+ condition'),
    h('button', { id: 'filter-apply', type: 'submit' }, 'Apply'),
    h('button', { id: 'filter-clear', type: 'button', onclick: () => {
      conditions.length = 0;
      showKept();
      state.where = {};
      state.skip = 0;
      run(load);
    } }, 'Clear'));
  filter.addEventListener('submit', (event) => {
    event.preventDefault();
    run(async () => {
      const current = currentCondition();
      const clauses = [...conditions, ...(current ? [current] : [])].map((item) => item.clause);
      state.where = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0] : { [filterMode.value]: clauses };
      state.skip = 0;
      await load();
    });
  });

  const importInput = h('input', { id: 'import-file', type: 'file', accept: '.json,.csv,application/json,text/csv' });
  const progress = h('progress', { id: 'import-progress', max: 1, value: 0, hidden: true });
  importInput.addEventListener('change', () => run(async () => {
    const file = importInput.files[0];
    if (!file) return;
    await importInto(className, file, progress, report, state.schema);
    importInput.value = '';
    await reloadSchema();
    refreshColumnChoices();
    await load();
  }));

  // Drawn again after each change, with the schema as it then is.
  const openIndexes = () => showIndexes(panel, state.schema, async () => {
    await reloadSchema();
    openIndexes();
  });

  const toolbar = h('div', { class: 'toolbar' },
    h('h2', {}, className),
    h('button', { id: 'add-row', type: 'button', onclick: () => run(async () => { await api('POST', path, {}); await load(); }) }, 'Add row'),
    h('button', {
      id: 'delete-rows', type: 'button',
      onclick: () => run(async () => {
        const ids = selected();
        if (!ids.length || !confirm(`Delete ${ids.length} row(s)?`)) return;
        for (const id of ids) await api('DELETE', `${path}/${encodeURIComponent(id)}`);
        await load();
      }),
    }, 'Delete rows'),
    h('button', { id: 'refresh', type: 'button', onclick: () => run(load) }, 'Refresh'),
    h('button', { id: 'export', type: 'button', onclick: () => run(() => exportClass(className, report)) }, 'Export'),
    h('label', { class: 'button' }, 'Import ', importInput), progress,
    h('button', { id: 'security', type: 'button', onclick: () => run(() => showPermissions(panel, state.schema, async () => { await reloadSchema(); })) }, 'Security'),
    h('button', { id: 'indexes-button', type: 'button', onclick: () => run(async () => openIndexes()) }, 'Indexes'),
    className === '_User' ? h('button', {
      id: 'set-password', type: 'button',
      onclick: () => run(async () => {
        const ids = selected();
        if (ids.length !== 1) { say('Select one user.', true); return; }
        const password = prompt('New password for this user (their sessions end)');
        if (!password) return;
        await api('PUT', `${path}/${encodeURIComponent(ids[0])}`, { password });
        say('Password set.');
      }),
    }, 'Set password') : null,
    h('button', {
      id: 'delete-class', type: 'button', class: 'danger',
      onclick: () => run(async () => {
        if (!confirm(`Delete the class ${className} and all its rows?`)) return;
        await api('DELETE', `purge/${encodeURIComponent(className)}`).catch(() => {});
        await api('DELETE', `schemas/${encodeURIComponent(className)}`);
        location.hash = '#/core';
      }),
    }, 'Delete class'),
    liveState);
  const columnsBar = h('div', { class: 'toolbar' }, addColumn, removable, removeColumn, filter);
  const paging = h('div', { class: 'toolbar' },
    h('button', { id: 'page-previous', type: 'button', onclick: () => { state.skip = Math.max(0, state.skip - PAGE); run(load); } }, '‹ Previous'),
    pager,
    h('button', { id: 'page-next', type: 'button', onclick: () => { state.skip += PAGE; run(load); } }, 'Next ›'));
  container.append(toolbar, columnsBar, panel, report, paging, h('div', { class: 'scroll' }, table));
  await load();

  state.live = watchClass(className, {
    onState: (text) => { liveState.textContent = text; },
    onUpdate: (object) => {
      const row = state.rows.find((item) => item.objectId === object.objectId);
      if (!row) return;
      Object.assign(row, object);
      for (const td of table.querySelectorAll(`tr[data-object-id="${CSS.escape(object.objectId)}"] td[data-field]`)) {
        if (td.querySelector('.cell-editor')) continue;
        clear(td).append(renderValue(row[td.dataset.field], fieldOf(td.dataset.field)));
      }
    },
    refresh: () => (table.querySelector('.cell-editor') ? Promise.resolve() : load()),
  });
  window.addEventListener('hashchange', () => state.live && state.live.close(), { once: true });
}
