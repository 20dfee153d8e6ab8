// The API console: one REST request composed by hand (method, path below the mount, JSON body), sent with the
// master key (through the dashboard's session, so the key stays on the server) or as a user's session token, and
// its answer shown as it came: status and body.
import { apiURL, appHeaders, currentAppId, session } from './api.js';
import { h, say } from './dom.js';

export async function showConsole(view) {
  const method = h('select', { id: 'console-method' }, ['GET', 'POST', 'PUT', 'DELETE'].map((item) => h('option', { value: item }, item)));
  const path = h('input', { id: 'console-path', placeholder: 'classes/Cat?limit=5', size: 50, required: true });
  const as = h('select', { id: 'console-as' }, h('option', { value: 'master' }, 'master key'),
    h('option', { value: 'session' }, 'session token'));
  const token = h('input', { id: 'console-token', placeholder: 'r:...', hidden: true });
  as.addEventListener('change', () => { token.hidden = as.value !== 'session'; });
  const body = h('textarea', { id: 'console-body', rows: 6, placeholder: '{"name":"Tom"}' });
  const status = h('p', { id: 'console-status' });
  const answer = h('pre', { id: 'console-answer', class: 'card' });
  const form = h('form', { id: 'console-form', class: 'card' }, h('h2', {}, 'API console'),
    h('div', { class: 'toolbar' }, method, path, as, token), body, h('button', { id: 'console-send', type: 'submit' }, 'Send'));
  view.append(form, status, answer);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const headers = {};
    if (as.value === 'master') {
      headers['X-Parse-Dashboard-Token'] = session().csrfToken;
      Object.assign(headers, appHeaders());
    } else {
      headers['X-Parse-Application-Id'] = currentAppId();
      headers['X-Parse-Session-Token'] = token.value.trim();
    }
    const text = body.value.trim();
    if (text) {
      try { JSON.parse(text); } catch { say('The body must be JSON.', true); return; }
      headers['Content-Type'] = 'application/json';
    }
    const response = await fetch(apiURL(path.value.trim()), {
      method: method.value, credentials: as.value === 'master' ? 'same-origin' : 'omit', cache: 'no-store', headers,
      body: text && method.value !== 'GET' ? text : undefined,
    });
    const received = await response.text();
    status.textContent = `${response.status} ${response.statusText}`;
    try { answer.textContent = JSON.stringify(JSON.parse(received), null, 2); } catch { answer.textContent = received; }
    say('');
  });
}
