// A class's indexes (`/schemas` `indexes`): listed, added on one field or more, and dropped.
import { api } from './api.js';
import { attempt, clear, h, say } from './dom.js';

export function showIndexes(panel, schema, saved) {
  clear(panel);
  const className = schema.className;
  const indexes = schema.indexes || {};
  const fields = Object.keys(schema.fields).filter((name) => !['ACL'].includes(name)).sort();
  const name = h('input', { id: 'index-name', placeholder: 'name_1', required: true });
  const chosen = h('select', { id: 'index-fields', multiple: true, size: Math.min(6, fields.length) },
    fields.map((field) => h('option', { value: field }, field)));
  const change = async (body, done) => {
    if (await attempt(() => api('PUT', `schemas/${encodeURIComponent(className)}`, { className, indexes: body }), done)) {
      await saved();
    }
  };
  const form = h('form', { id: 'index-form', class: 'toolbar' }, name, chosen, h('button', { id: 'index-add', type: 'submit' }, 'Add index'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const keys = [...chosen.selectedOptions].map((option) => option.value);
    if (!keys.length) { say('Choose the fields of the index.', true); return; }
    await change({ [name.value.trim()]: Object.fromEntries(keys.map((key) => [key, 1])) }, `Index ${name.value.trim()} added.`);
  });
  const names = Object.keys(indexes).sort();
  panel.append(h('h3', {}, `Indexes of ${className}`), form, h('table', { id: 'indexes', class: 'rows' },
    h('thead', {}, h('tr', {}, h('th', {}, 'index'), h('th', {}, 'fields'), h('th', {}, ''))),
    h('tbody', {}, names.length ? names.map((index) => h('tr', { dataset: { index } }, h('td', {}, index),
      h('td', {}, JSON.stringify(indexes[index])),
      h('td', {}, index === '_id_' ? '' : h('button', { type: 'button', class: 'index-drop', onclick: async () => {
        if (confirm(`Drop the index ${index}?`)) await change({ [index]: { __op: 'Delete' } }, `Index ${index} dropped.`);
      } }, 'Drop')))) : h('tr', {}, h('td', { class: 'empty', colspan: '3' }, 'No index yet.')))));
}
