// The Config tab: Parse Config's parameters (`/config`) with their types, added, edited and deleted, each with
// its master-key-only flag.
import { api, session } from './api.js';
import { attempt, h, clear, say } from './dom.js';

const TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'GeoPoint'];

export function typeOf(value) {
  if (Array.isArray(value)) return 'Array';
  if (value !== null && typeof value === 'object') {
    if (value.__type === 'Date') return 'Date';
    if (value.__type === 'GeoPoint') return 'GeoPoint';
    return 'Object';
  }
  return { string: 'String', number: 'Number', boolean: 'Boolean' }[typeof value] || 'Object';
}

function text(value) {
  switch (typeOf(value)) {
    case 'String': return value;
    case 'Date': return value.iso;
    case 'GeoPoint': return `${value.latitude}, ${value.longitude}`;
    default: return JSON.stringify(value);
  }
}

// The value a form's text means for `type`; throws a message a person can act on.
export function parse(type, input) {
  switch (type) {
    case 'String': return input;
    case 'Number': {
      const number = Number(input);
      if (input.trim() === '' || !Number.isFinite(number)) throw new Error('Not a number.');
      return number;
    }
    case 'Boolean':
      if (input !== 'true' && input !== 'false') throw new Error('A boolean is true or false.');
      return input === 'true';
    case 'Date': {
      const date = new Date(input);
      if (Number.isNaN(date.getTime())) throw new Error('Not a date.');
      return { __type: 'Date', iso: date.toISOString() };
    }
    case 'GeoPoint': {
      const [latitude, longitude] = input.split(',').map((part) => Number(part.trim()));
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) throw new Error('A geopoint is latitude, longitude.');
      return { __type: 'GeoPoint', latitude, longitude };
    }
    default: {
      let value;
      try { value = JSON.parse(input); } catch { throw new Error('Not JSON.'); }
      if ((type === 'Array') !== Array.isArray(value) || value === null || typeof value !== 'object') {
        throw new Error(type === 'Array' ? 'Not a JSON array.' : 'Not a JSON object.');
      }
      return value;
    }
  }
}

export async function showConfig(view) {
  const readOnly = session().readOnly;
  const table = h('table', { id: 'config', class: 'rows' });
  const name = h('input', { id: 'config-name', placeholder: 'name', required: true });
  const type = h('select', { id: 'config-type' }, TYPES.map((item) => h('option', { value: item }, item)));
  const value = h('input', { id: 'config-value', placeholder: 'value' });
  const masterOnly = h('input', { id: 'config-master-only', type: 'checkbox' });
  const form = h('form', { id: 'config-form', class: 'toolbar', hidden: readOnly }, name, type, value,
    h('label', {}, masterOnly, ' master key only'), h('button', { id: 'config-save', type: 'submit' }, 'Save'));
  view.append(h('h2', {}, 'Config'), form, table);

  const load = async () => {
    const config = await api('GET', 'config');
    const flags = config.masterKeyOnly || {};
    const names = Object.keys(config.params || {}).sort();
    clear(table).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'parameter'), h('th', {}, 'type'), h('th', {}, 'value'),
        h('th', {}, 'master key only'), h('th', {}, ''))),
      h('tbody', {}, names.length ? names.map((key) => {
        const current = config.params[key];
        return h('tr', { dataset: { name: key } }, h('td', {}, key), h('td', {}, typeOf(current)), h('td', {}, text(current)),
          h('td', {}, flags[key] ? 'yes' : ''),
          h('td', {}, readOnly ? '' : [
            h('button', { type: 'button', class: 'config-edit', onclick: () => {
              name.value = key;
              type.value = typeOf(current);
              value.value = text(current);
              masterOnly.checked = Boolean(flags[key]);
              value.focus();
            } }, 'Edit'),
            h('button', { type: 'button', class: 'config-delete', onclick: async () => {
              if (!confirm(`Delete the parameter ${key}?`)) return;
              await save({ params: { [key]: { __op: 'Delete' } } }, `${key} deleted.`);
            } }, 'Delete'),
          ]));
      }) : h('tr', {}, h('td', { class: 'empty', colspan: '5' }, 'No parameters yet.'))));
  };
  const save = async (body, done) => {
    if (await attempt(() => api('PUT', 'config', body), done)) await load();
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let parsed;
    try {
      parsed = parse(type.value, value.value);
    } catch (error) {
      say(error.message, true);
      return;
    }
    const key = name.value.trim();
    await save({ params: { [key]: parsed }, masterKeyOnly: { [key]: masterOnly.checked } }, `${key} saved.`);
  });
  await load();
}
