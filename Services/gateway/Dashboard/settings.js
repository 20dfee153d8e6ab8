// The Settings tab: the app's name, its application id and server URL, the keys a client needs (the master key
// only on request, and never to a read-only user: the server refuses it), the settings that change while the
// server runs (`/settings`), and an export of every class as JSON and CSV in one ZIP archive with the schemas.
import { api, chooseApp, chosenApp, dashboardGet, deleteApp, renameApp, rotateKeys, session } from './api.js';
import { attempt, h } from './dom.js';
import { settingsForm } from './runtime-settings.js';
import { allObjects, toCSV } from './transfer.js';
import { zipArchive } from './zip.js';

const KEYS = [['clientKey', 'Client key'], ['javascriptKey', 'JavaScript key'], ['restAPIKey', 'REST API key'],
  ['dotNetKey', '.NET key']];

// The keys of the app the switcher shows.
const keys = (withMasterKey) => {
  const query = new URLSearchParams();
  if (chosenApp()) query.set('app', chosenApp());
  if (withMasterKey) query.set('masterKey', '1');
  const text = query.toString();
  return dashboardGet('keys' + (text ? '?' + text : ''));
};

export async function showSettings(view) {
  const app = await keys(false);
  const serverURL = location.origin + (session().mountPath === '/' ? '' : session().mountPath);
  const row = (id, name, value) => h('tr', { dataset: { key: id } }, h('th', {}, name),
    h('td', { class: 'key-value' }, value ?? h('span', { class: 'empty' }, 'not set')));
  const masterValue = h('span', { class: 'hint' }, 'hidden');
  const showMaster = h('button', { id: 'show-master-key', type: 'button', disabled: !app.canSeeMasterKey }, 'Show');
  showMaster.addEventListener('click', () => attempt(async () => {
    const answer = await keys(true);
    masterValue.className = '';
    masterValue.textContent = answer.masterKey;
    showMaster.remove();
  }, 'The master key is shown until you leave this page.'));
  const keyTable = h('table', { id: 'keys', class: 'rows' }, h('tbody', {},
    row('appName', 'App name', app.appName), row('applicationId', 'Application ID', app.applicationId),
    row('serverURL', 'Server URL', serverURL),
    KEYS.map(([id, name]) => row(id, name, app[id])),
    h('tr', { dataset: { key: 'masterKey' } }, h('th', {}, 'Master key'),
      h('td', { class: 'key-value' }, masterValue, ' ', showMaster))));

  // An app created here gets new keys on request; the stack's own app's are its environment's.
  const rotate = chosenApp() && app.canRotate ? h('button', { id: 'rotate-keys', type: 'button' }, 'Rotate keys') : null;
  rotate?.addEventListener('click', () => attempt(async () => {
    rotate.disabled = true;
    await rotateKeys(chosenApp());
    view.replaceChildren();
    await showSettings(view);
  }, 'New keys are in force; the old ones no longer work.'));

  // So is its name; the switcher shows the new one (`apps-changed`).
  const renameInput = h('input', { id: 'app-name', value: app.appName, 'aria-label': 'App name' });
  const rename = chosenApp() && app.canRotate
    ? h('form', { id: 'rename-app', class: 'inline' }, renameInput, h('button', { id: 'rename-app-submit', type: 'submit' }, 'Rename')) : null;
  rename?.addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(async () => {
      await renameApp(chosenApp(), renameInput.value.trim());
      document.dispatchEvent(new CustomEvent('apps-changed'));
      view.replaceChildren();
      await showSettings(view);
    }, 'The app is renamed.');
  });

  // Deleting takes the app's name typed again, as its data goes with it.
  const confirmInput = h('input', { id: 'delete-app-confirm', placeholder: app.appName, 'aria-label': 'The app\'s name' });
  const removal = chosenApp() && app.canRotate ? h('section', { class: 'card', id: 'settings-delete' }, h('h2', {}, 'Delete this app'),
    h('p', { class: 'hint' }, 'Its keys stop working and all its data, files and settings are removed. Type its name to confirm.'),
    h('form', { id: 'delete-app', class: 'inline' }, confirmInput,
      h('button', { id: 'delete-app-submit', type: 'submit', class: 'danger' }, 'Delete'))) : null;
  removal?.querySelector('form').addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(async () => {
      await deleteApp(chosenApp(), confirmInput.value);
      chooseApp(null);
      document.dispatchEvent(new CustomEvent('apps-changed'));
      location.hash = '#/core';
    }, `${app.appName} is deleted.`);
  });

  const progress = h('p', { id: 'export-progress', class: 'hint' });
  const exportButton = h('button', { id: 'export-app', type: 'button' }, 'Export all data');
  exportButton.addEventListener('click', () => attempt(async () => {
    exportButton.disabled = true;
    try {
      progress.replaceChildren(await exportApp(app.appName || app.applicationId));
    } finally {
      exportButton.disabled = false;
    }
  }, 'The export is ready.'));

  view.append(
    h('section', { class: 'card', id: 'settings-keys' }, h('h2', {}, 'Keys'),
      h('p', { class: 'hint' }, chosenApp() ? 'What a client needs to reach this app.'
        : 'What a client needs to reach this app. Keys are set where the server is started.'), keyTable, rotate, rename),
    await settingsForm(),
    h('section', { class: 'card', id: 'settings-export' }, h('h2', {}, 'Export data'),
      h('p', { class: 'hint' }, 'Every class as JSON (as the data browser imports it) and as CSV, with the schemas, in one ZIP archive.'),
      exportButton, progress),
    removal);
}

async function exportApp(name) {
  const { results: schemas } = await api('GET', 'schemas');
  const files = [{ name: 'schemas.json', text: JSON.stringify({ results: schemas }, null, 2) }];
  const counts = [];
  // A class that cannot be read (a beforeFind trigger that fails, say) is named in the archive and on the page;
  // the others are exported all the same.
  const failures = [];
  for (const schema of schemas) {
    try {
      const objects = await allObjects(schema.className);
      files.push({ name: `${schema.className}.json`, text: JSON.stringify({ results: objects }, null, 2) },
        { name: `${schema.className}.csv`, text: toCSV(objects) });
      counts.push(`${schema.className}: ${objects.length}`);
    } catch (error) {
      failures.push(`${schema.className}: ${error.message}`);
    }
  }
  if (failures.length) files.push({ name: 'not-exported.txt', text: failures.join('\n') + '\n' });
  const fileName = `${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}-export.zip`;
  const link = h('a', { id: 'export-app-link', href: URL.createObjectURL(zipArchive(files)), download: fileName }, fileName);
  link.click();
  return h('span', {}, link, ` (${schemas.length - failures.length} classes; rows: ${counts.join(', ')})`,
    failures.length ? h('span', { id: 'export-failures', class: 'error' }, ` Not exported: ${failures.join('; ')}`) : null);
}
