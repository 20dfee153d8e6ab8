// Every call goes to the same REST API a client uses; the gateway adds the master key to calls that carry
// the dashboard's cookie and this page's CSRF token, so the key never reaches the browser.
// `app`: the app chosen in the switcher when it is not the stack's own; its calls carry it
// (`X-Parse-Dashboard-App`) and the gateway adds that app's keys instead.
const state = { session: null, app: null };

export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function session() { return state.session; }

export function chosenApp() { return state.app; }

// The application id of the app the pages show.
export function currentAppId() { return state.app || state.session.applicationId; }

export function chooseApp(id) {
  state.app = id && id !== state.session.applicationId ? id : null;
  sessionStorage.setItem('parse-dashboard-app', id || '');
}

export function appHeaders() { return state.app ? { 'X-Parse-Dashboard-App': state.app } : {}; }

export function dashboardPath() {
  const path = location.pathname.replace(/\/[^/]*$/, '');
  return path;
}

async function answer(response) {
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : {}; } catch { body = { error: text }; }
  if (!response.ok) throw new APIError(response.status, body && body.code, (body && body.error) || response.statusText);
  return body;
}

export async function loadSession() {
  const response = await fetch(dashboardPath() + '/session', { credentials: 'same-origin', cache: 'no-store' });
  if (response.status === 401) {
    const body = await response.json().catch(() => ({}));
    state.session = null;
    return { loggedIn: false, login: body.login || 'masterKey' };
  }
  state.session = await answer(response);
  return { loggedIn: true };
}

export async function logIn(fields) {
  const response = await fetch(dashboardPath() + '/login', {
    method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(fields),
  });
  state.session = await answer(response);
}

export async function logOut() {
  await fetch(dashboardPath() + '/logout', {
    method: 'POST', credentials: 'same-origin', headers: { 'X-Parse-Dashboard-Token': state.session.csrfToken },
  });
  state.session = null;
}

// A GET of one of the dashboard's own routes (`keys`, `apps`), with this login's CSRF token; errors as `api`'s.
export async function dashboardGet(path) {
  const response = await fetch(dashboardPath() + '/' + path, {
    credentials: 'same-origin', cache: 'no-store', headers: { 'X-Parse-Dashboard-Token': state.session.csrfToken },
  });
  return answer(response);
}

async function dashboardPost(path, body) {
  const response = await fetch(dashboardPath() + '/' + path, {
    method: 'POST', credentials: 'same-origin', cache: 'no-store',
    headers: { 'X-Parse-Dashboard-Token': state.session.csrfToken, 'Content-Type': 'application/json' },
    body: JSON.stringify(body || {}),
  });
  return answer(response);
}

export const listApps = () => dashboardGet('apps');
export const createApp = (name) => dashboardPost('apps', { name });
export const rotateKeys = (id) => dashboardPost('apps/' + encodeURIComponent(id) + '/keys');
export const renameApp = (id, name) => dashboardPost('apps/' + encodeURIComponent(id) + '/name', { name });
export const deleteApp = (id, confirm) => dashboardPost('apps/' + encodeURIComponent(id) + '/delete', { confirm });

export function apiURL(path) {
  const mount = state.session.mountPath === '/' ? '' : state.session.mountPath;
  return mount + '/' + path.replace(/^\//, '');
}

export async function api(method, path, body, query) {
  let url = apiURL(path);
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const text = params.toString();
    if (text) url += '?' + text;
  }
  const headers = { 'X-Parse-Dashboard-Token': state.session.csrfToken, ...appHeaders() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(url, {
    method, credentials: 'same-origin', cache: 'no-store', headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answer(response);
}

export async function uploadFile(name, file) {
  const response = await fetch(apiURL('files/' + encodeURIComponent(name)), {
    method: 'POST', credentials: 'same-origin',
    headers: { 'X-Parse-Dashboard-Token': state.session.csrfToken, ...appHeaders(),
      'Content-Type': file.type || 'application/octet-stream' },
    body: file,
  });
  return answer(response);
}
