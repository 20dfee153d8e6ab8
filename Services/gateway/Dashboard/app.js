import { chooseApp, chosenApp, createApp, listApps, loadSession, logIn, logOut, session } from './api.js';
import { h, say } from './dom.js';
import { showCore } from './core.js';
import { showAnalytics } from './analytics.js';
import { showPush } from './push.js';
import { showLogs } from './logs.js';
import { showConfig } from './config.js';
import { showConsole } from './console.js';
import { showGraphQL } from './graphql.js';
import { showCloudCode } from './cloudcode.js';
import { showSettings } from './settings.js';

const views = { core: showCore, analytics: showAnalytics, config: showConfig, cloud: showCloudCode, push: showPush,
  logs: showLogs, console: showConsole, graphql: showGraphQL, settings: showSettings };

function showLogin(mode) {
  document.getElementById('app').hidden = true;
  document.getElementById('login').hidden = false;
  for (const label of document.querySelectorAll('#login-form label')) label.hidden = label.dataset.mode !== mode;
  document.getElementById('login-form').dataset.mode = mode;
  (mode === 'users' ? document.getElementById('login-user') : document.getElementById('login-master-key')).focus();
}

async function route() {
  if (!session()) return;
  const [, tab = 'core', ...rest] = location.hash.split('/');
  const show = views[tab] || showCore;
  for (const link of document.querySelectorAll('nav a[data-tab]')) link.classList.toggle('active', link.dataset.tab === tab);
  // Each view draws into an element of its own: a view still loading when another is chosen then fills an element
  // no longer on the page, instead of drawing itself under the new one.
  const view = document.createElement('div');
  document.getElementById('view').replaceChildren(view);
  say('');
  try {
    await show(view, rest.map(decodeURIComponent));
  } catch (error) {
    say(error.message, true);
  }
}

// The switcher lists every app, the stack's own first; `wanted` (or the last choice) is shown.
async function loadApps(wanted) {
  const switcher = document.getElementById('app-switcher');
  let apps = [{ applicationId: session().applicationId, name: session().applicationId }];
  try {
    ({ results: apps } = await listApps());
  } catch (error) {
    say(error.message, true);
  }
  switcher.replaceChildren(...apps.map((app) => h('option', { value: app.applicationId }, app.name)));
  const choice = wanted ?? sessionStorage.getItem('parse-dashboard-app');
  switcher.value = apps.some((app) => app.applicationId === choice) ? choice : session().applicationId;
  chooseApp(switcher.value);
}

async function showApp() {
  document.getElementById('login').hidden = true;
  document.getElementById('app').hidden = false;
  document.getElementById('who').textContent = session().user + (session().readOnly ? ' (read-only)' : '');
  document.getElementById('new-app').hidden = session().readOnly;
  await loadApps();
  route();
}

document.addEventListener('DOMContentLoaded', async () => {
  document.getElementById('login-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const error = document.getElementById('login-error');
    error.textContent = '';
    const fields = form.dataset.mode === 'users'
      ? { username: document.getElementById('login-user').value, password: document.getElementById('login-password').value }
      : { masterKey: document.getElementById('login-master-key').value };
    try {
      await logIn(fields);
      document.getElementById('login-master-key').value = '';
      document.getElementById('login-password').value = '';
      showApp();
    } catch (failure) {
      error.textContent = failure.message;
    }
  });
  document.getElementById('logout').addEventListener('click', async () => {
    await logOut();
    location.hash = '';
    showLogin(document.getElementById('login-form').dataset.mode || 'masterKey');
  });
  document.getElementById('app-switcher').addEventListener('change', (event) => {
    chooseApp(event.currentTarget.value);
    route();
  });
  document.getElementById('new-app').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = document.getElementById('new-app-name');
    try {
      const app = await createApp(input.value.trim());
      input.value = '';
      await loadApps(app.applicationId);
      location.hash = '#/settings';
      await route();
      say(`${app.appName} is created: its keys are below.`);
    } catch (error) {
      say(error.message, true);
    }
  });
  document.addEventListener('apps-changed', () => loadApps(chosenApp()));
  window.addEventListener('hashchange', route);
  const current = await loadSession();
  if (current.loggedIn) showApp(); else showLogin(current.login);
});
