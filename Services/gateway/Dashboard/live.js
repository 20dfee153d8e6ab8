// Keeps the visible rows current from the LiveQuery service (through the gateway, at the API's mount): an update
// changes its row in place; a create, a delete or a row entering or leaving the class's rows loads the page again.
// While the socket is down the page is refreshed every few seconds and the socket is opened again, after 1 s, then
// 2, 4 ... up to 30 s; the state shown says which of the two is keeping the rows current.
import { chosenApp, currentAppId, dashboardGet, session } from './api.js';

const REFRESH_MS = 5000;
const RECONNECT_MAX_MS = 30000;
// The keys Settings shows, by the names LiveQuery's `connect` gives them.
const CONNECT_FIELDS = { javascriptKey: 'javascriptKey', clientKey: 'clientKey', restAPIKey: 'restAPIKey', dotNetKey: 'windowsKey' };
// Several changes in a burst cost one reload.
const RELOAD_DELAY_MS = 100;

export function watchClass(className, { onState, onUpdate, refresh }) {
  let socket = null;
  let pollTimer = null;
  let reconnectTimer = null;
  let reloadTimer = null;
  let backoff = 1000;
  let closed = false;
  // Whether changes may have been missed since the last subscription.
  let missed = false;

  const reload = () => { refresh().catch(() => {}); };

  function reloadSoon() {
    if (reloadTimer) return;
    reloadTimer = setTimeout(() => { reloadTimer = null; reload(); }, RELOAD_DELAY_MS);
  }

  function lost() {
    if (closed) return;
    socket = null;
    missed = true;
    onState(`not live: refreshing every ${REFRESH_MS / 1000} s, reconnecting`);
    if (!pollTimer) pollTimer = setInterval(reload, REFRESH_MS);
    if (!reconnectTimer) {
      reconnectTimer = setTimeout(() => { reconnectTimer = null; open(); }, backoff);
      backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
    }
  }

  // A client key of the app (an app created at run time always has them; the stack's own may have none), as the
  // LiveQuery server asks for one whenever the app has any.
  let clientKey = null;
  async function keyOfApp() {
    if (clientKey) return clientKey;
    const keys = await dashboardGet('keys' + (chosenApp() ? '?app=' + encodeURIComponent(chosenApp()) : ''));
    const field = Object.keys(CONNECT_FIELDS).find((name) => keys[name]);
    if (field) clientKey = { [CONNECT_FIELDS[field]]: keys[field] };
    return clientKey || {};
  }

  async function open() {
    if (closed) return;
    let key;
    try {
      key = await keyOfApp();
    } catch {
      lost();
      return;
    }
    if (closed) return;
    let current;
    try {
      const mount = session().mountPath === '/' ? '/' : session().mountPath;
      current = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + mount);
    } catch {
      lost();
      return;
    }
    socket = current;
    current.addEventListener('open', () => {
      current.send(JSON.stringify({ op: 'connect', applicationId: currentAppId(), ...key }));
    });
    current.addEventListener('message', (message) => {
      let data;
      try { data = JSON.parse(message.data); } catch { return; }
      if (data.op === 'connected') {
        current.send(JSON.stringify({ op: 'subscribe', requestId: 1, query: { className, where: {} } }));
      } else if (data.op === 'subscribed') {
        backoff = 1000;
        clearInterval(pollTimer);
        pollTimer = null;
        onState('live');
        // Changes made while the socket was down.
        if (missed) { missed = false; reload(); }
      } else if (data.op === 'update' && data.object) {
        onUpdate(data.object);
      } else if (['create', 'delete', 'enter', 'leave'].includes(data.op)) {
        reloadSoon();
      } else if (data.op === 'error') {
        current.close();
      }
    });
    // An error is followed by close; the state changes once.
    current.addEventListener('close', () => { if (socket === current) lost(); });
  }

  open();
  return {
    close() {
      closed = true;
      clearInterval(pollTimer);
      clearTimeout(reconnectTimer);
      clearTimeout(reloadTimer);
      if (socket && socket.readyState <= 1) socket.close();
    },
  };
}
