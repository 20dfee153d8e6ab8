// The settings that change while the server runs (`GET`/`PUT /settings`): client class creation, session length,
// the password policy, e-mail verification and file uploads. Save sends only what was edited; Reset returns a
// setting to the value the server started with. The server checks every value and stores none of a change it
// refuses in part.
import { api, session } from './api.js';
import { attempt, clear, h, say } from './dom.js';

const FIELDS = [
  { name: 'allowClientClassCreation', label: 'Clients may create classes', kind: 'boolean' },
  { name: 'sessionLength', label: 'Session length (seconds)', kind: 'number' },
  { name: 'passwordPolicy', label: 'Password policy (JSON; {} for none)', kind: 'json' },
  { name: 'verifyUserEmails', label: 'Verify e-mail addresses', kind: 'boolean' },
  { name: 'preventLoginWithUnverifiedEmail', label: 'No login before the e-mail is verified', kind: 'boolean' },
  { name: 'emailVerifyTokenValidityDuration', label: 'Verification link valid for (seconds)', kind: 'number' },
  { name: 'fileUpload', label: 'File uploads (JSON: enableForPublic, enableForAnonymousUser, enableForAuthenticatedUser, fileExtensions)', kind: 'json' },
];

export async function settingsForm() {
  const card = h('section', { class: 'card', id: 'settings-runtime' });
  const readOnly = session().readOnly;

  async function draw() {
    const { settings, changed } = await api('GET', 'settings');
    const inputs = new Map();
    const rows = FIELDS.map((field) => {
      const value = settings[field.name];
      const input = field.kind === 'boolean'
        ? h('input', { type: 'checkbox', id: `setting-${field.name}`, checked: value === true, disabled: readOnly })
        : field.kind === 'json'
          ? h('textarea', { id: `setting-${field.name}`, rows: 2, cols: 60, disabled: readOnly }, value === null ? '' : JSON.stringify(value))
          : h('input', { type: 'number', id: `setting-${field.name}`, value: value ?? '', disabled: readOnly });
      inputs.set(field.name, { field, input, original: value });
      const reset = changed.includes(field.name) && !readOnly
        ? h('button', { type: 'button', class: 'setting-reset', onclick: () => save({ [field.name]: null }, `${field.label}: back to the start-up value.`) }, 'Reset')
        : null;
      return h('tr', { dataset: { setting: field.name, changed: changed.includes(field.name) } },
        h('th', {}, field.label), h('td', {}, input), h('td', {}, changed.includes(field.name) ? h('span', { class: 'chip' }, 'changed') : '', reset));
    });
    const saveButton = h('button', { id: 'settings-save', type: 'submit', hidden: readOnly }, 'Save');
    const form = h('form', { id: 'settings-form' }, h('table', { class: 'rows', id: 'runtime-settings' }, h('tbody', {}, rows)), saveButton);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      let changes;
      try { changes = edited(inputs); } catch (error) { say(error.message, true); return; }
      if (!Object.keys(changes).length) { say('Nothing to save.'); return; }
      await save(changes, 'Settings saved; they apply from the next request.');
    });
    clear(card).append(h('h2', {}, 'Settings'),
      h('p', { class: 'hint' }, 'Applied by the server from the next request; Reset returns a setting to the value the server started with.'),
      form);
  }

  async function save(changes, done) {
    if (await attempt(() => api('PUT', 'settings', changes), done)) await draw();
  }

  await draw();
  return card;
}

// The fields whose value differs from what was loaded; throws a message a person can act on.
function edited(inputs) {
  const changes = {};
  for (const { field, input, original } of inputs.values()) {
    let value;
    if (field.kind === 'boolean') {
      value = input.checked;
    } else if (field.kind === 'number') {
      if (input.value.trim() === '') { if (original !== null) throw new Error(`${field.label}: a number, or Reset.`); continue; }
      value = Number(input.value);
      if (!Number.isFinite(value)) throw new Error(`${field.label}: not a number.`);
    } else {
      if (input.value.trim() === '') { if (original !== null) throw new Error(`${field.label}: JSON, or Reset.`); continue; }
      try { value = JSON.parse(input.value); } catch { throw new Error(`${field.label}: not JSON.`); }
    }
    if (JSON.stringify(value) !== JSON.stringify(original)) changes[field.name] = value;
  }
  return changes;
}
