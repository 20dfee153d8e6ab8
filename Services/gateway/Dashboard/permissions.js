// The class-level permissions editor: for each operation, public, any logged-in user, and other keys
// (user ids, `role:<name>`), saved with PUT /schemas/<class>.
import { api } from './api.js';
import { clear, h, say } from './dom.js';

const OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'];

export function showPermissions(panel, schema, saved) {
  clear(panel);
  const current = schema.classLevelPermissions || {};
  const rows = OPERATIONS.map((operation) => {
    const entry = current[operation] || {};
    const others = Object.keys(entry).filter((key) => key !== '*' && key !== 'requiresAuthentication');
    return {
      operation,
      everyone: h('input', { type: 'checkbox', id: `clp-${operation}-public`, checked: entry['*'] === true }),
      signedIn: h('input', { type: 'checkbox', id: `clp-${operation}-authenticated`, checked: entry.requiresAuthentication === true }),
      keys: h('input', { id: `clp-${operation}-keys`, value: others.join(', '), placeholder: 'role:Admin, userId' }),
    };
  });
  const save = h('button', { id: 'clp-save', type: 'submit' }, 'Save permissions');
  const form = h('form', { id: 'permissions', class: 'card' },
    h('h3', {}, `Class-level permissions of ${schema.className}`),
    h('table', { class: 'rows' },
      h('thead', {}, h('tr', {}, h('th', {}, 'operation'), h('th', {}, 'public'), h('th', {}, 'logged-in users'), h('th', {}, 'users and roles'))),
      h('tbody', {}, rows.map((row) => h('tr', {}, h('td', {}, row.operation), h('td', {}, row.everyone), h('td', {}, row.signedIn), h('td', {}, row.keys))))),
    save, h('button', { type: 'button', onclick: () => clear(panel) }, 'Close'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const permissions = { ...current };
    for (const row of rows) {
      const entry = {};
      if (row.everyone.checked) entry['*'] = true;
      if (row.signedIn.checked) entry.requiresAuthentication = true;
      for (const key of row.keys.value.split(',').map((part) => part.trim()).filter(Boolean)) entry[key] = true;
      permissions[row.operation] = entry;
    }
    try {
      const answer = await api('PUT', `schemas/${encodeURIComponent(schema.className)}`,
        { className: schema.className, classLevelPermissions: permissions });
      schema.classLevelPermissions = answer.classLevelPermissions;
      await saved();
      say(`Saved the permissions of ${schema.className}.`);
      clear(panel);
    } catch (error) {
      say(error.message, true);
    }
  });
  panel.append(form);
}
