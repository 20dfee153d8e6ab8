// The class-level permissions editor: for each operation, public, any logged-in user, other keys (user ids,
// `role:<name>`) and pointer fields; the class's pointer permissions (`readUserFields`, `writeUserFields`) and its
// protected fields (one `key: field, field` line per user, role, `*`, `authenticated` or `userField:<pointer>`),
// saved with PUT /schemas/<class>.
import { api } from './api.js';
import { clear, h, say } from './dom.js';

const OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'];
const SPECIAL = new Set(['*', 'requiresAuthentication', 'pointerFields']);

function list(text) {
  return text.split(',').map((part) => part.trim()).filter(Boolean);
}

function protectedLines(protectedFields) {
  return Object.entries(protectedFields || {}).map(([key, fields]) => `${key}: ${(fields || []).join(', ')}`).join('\n');
}

function parseProtected(text) {
  const result = {};
  for (const line of text.split('\n').map((part) => part.trim()).filter(Boolean)) {
    const colon = line.lastIndexOf(':');
    if (colon <= 0) throw new Error(`Protected fields: "${line}" is not "key: field, field".`);
    result[line.slice(0, colon).trim()] = list(line.slice(colon + 1));
  }
  return Object.keys(result).length ? result : { '*': [] };
}

export function showPermissions(panel, schema, saved) {
  clear(panel);
  const current = schema.classLevelPermissions || {};
  const rows = OPERATIONS.map((operation) => {
    const entry = current[operation] || {};
    const others = Object.keys(entry).filter((key) => !SPECIAL.has(key));
    return {
      operation,
      everyone: h('input', { type: 'checkbox', id: `clp-${operation}-public`, checked: entry['*'] === true }),
      signedIn: h('input', { type: 'checkbox', id: `clp-${operation}-authenticated`, checked: entry.requiresAuthentication === true }),
      keys: h('input', { id: `clp-${operation}-keys`, value: others.join(', '), placeholder: 'role:Admin, userId' }),
      pointers: h('input', { id: `clp-${operation}-pointers`, value: (entry.pointerFields || []).join(', '), placeholder: 'owner' }),
    };
  });
  const readUsers = h('input', { id: 'clp-readUserFields', value: (current.readUserFields || []).join(', '), placeholder: 'owner' });
  const writeUsers = h('input', { id: 'clp-writeUserFields', value: (current.writeUserFields || []).join(', '), placeholder: 'owner' });
  const hidden = h('textarea', { id: 'clp-protected', rows: 4, placeholder: '*: email, phone\nrole:Admin:' });
  hidden.value = protectedLines(current.protectedFields);
  const save = h('button', { id: 'clp-save', type: 'submit' }, 'Save permissions');
  const form = h('form', { id: 'permissions', class: 'card' },
    h('h3', {}, `Class-level permissions of ${schema.className}`),
    h('table', { class: 'rows' },
      h('thead', {}, h('tr', {}, h('th', {}, 'operation'), h('th', {}, 'public'), h('th', {}, 'logged-in users'),
        h('th', {}, 'users and roles'), h('th', {}, 'users in pointer fields'))),
      h('tbody', {}, rows.map((row) => h('tr', {}, h('td', {}, row.operation), h('td', {}, row.everyone),
        h('td', {}, row.signedIn), h('td', {}, row.keys), h('td', {}, row.pointers))))),
    h('h4', {}, 'Pointer permissions'),
    h('label', {}, 'Fields whose users may read an object ', readUsers),
    h('label', {}, 'Fields whose users may write an object ', writeUsers),
    h('h4', {}, 'Protected fields'),
    h('label', {}, 'Hidden from whom (one line each) ', hidden),
    save, h('button', { type: 'button', onclick: () => clear(panel) }, 'Close'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const permissions = { ...current };
    try {
      for (const row of rows) {
        const entry = {};
        if (row.everyone.checked) entry['*'] = true;
        if (row.signedIn.checked) entry.requiresAuthentication = true;
        for (const key of list(row.keys.value)) entry[key] = true;
        const pointers = list(row.pointers.value);
        if (pointers.length) entry.pointerFields = pointers;
        permissions[row.operation] = entry;
      }
      for (const [name, input] of [['readUserFields', readUsers], ['writeUserFields', writeUsers]]) {
        const fields = list(input.value);
        if (fields.length) permissions[name] = fields; else delete permissions[name];
      }
      permissions.protectedFields = parseProtected(hidden.value);
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
