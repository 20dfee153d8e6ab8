// Keeps the visible rows current from the LiveQuery service (through the gateway, at the API's mount); when
// the socket cannot be opened or drops, the page is refreshed every few seconds instead.
import { session } from './api.js';

const REFRESH_MS = 5000;

export function watchClass(className, { onState, onUpdate, refresh }) {
  let socket = null;
  let timer = null;
  let closed = false;

  function poll() {
    if (timer || closed) return;
    onState('refreshing every 5 s');
    timer = setInterval(() => { refresh().catch(() => {}); }, REFRESH_MS);
  }

  try {
    const mount = session().mountPath === '/' ? '/' : session().mountPath;
    socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + mount);
  } catch {
    poll();
    return { close() { closed = true; clearInterval(timer); } };
  }
  socket.addEventListener('open', () => {
    socket.send(JSON.stringify({ op: 'connect', applicationId: session().applicationId }));
  });
  socket.addEventListener('message', (message) => {
    let data;
    try { data = JSON.parse(message.data); } catch { return; }
    if (data.op === 'connected') {
      socket.send(JSON.stringify({ op: 'subscribe', requestId: 1, query: { className, where: {} } }));
    } else if (data.op === 'subscribed') {
      onState('live');
    } else if ((data.op === 'update' || data.op === 'enter' || data.op === 'create') && data.object) {
      onUpdate(data.object);
    } else if (data.op === 'error') {
      socket.close();
    }
  });
  socket.addEventListener('close', () => { if (!closed) poll(); });
  socket.addEventListener('error', () => { if (!closed) poll(); });
  return {
    close() {
      closed = true;
      clearInterval(timer);
      if (socket && socket.readyState <= 1) socket.close();
    },
  };
}
