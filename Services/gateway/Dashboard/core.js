// The Core tab: the classes with their row counts, "Add a class", and the data browser of the chosen class.
import { api } from './api.js';
import { h, say } from './dom.js';
import { showBrowser } from './browser.js';

export async function showCore(view, [className, objectId]) {
  const { results: schemas } = await api('GET', 'schemas');
  schemas.sort((a, b) => a.className.localeCompare(b.className));
  const list = h('ul', { id: 'classes', class: 'classes' });
  const counts = [];
  for (const schema of schemas) {
    const count = h('span', { class: 'count', dataset: { className: schema.className } }, '…');
    list.append(h('li', { class: schema.className === className ? 'active' : '' },
      h('a', { href: `#/core/${encodeURIComponent(schema.className)}`, dataset: { className: schema.className } },
        schema.className, count)));
    counts.push({ className: schema.className, count });
  }
  const name = h('input', { id: 'new-class-name', placeholder: 'ClassName', required: true, pattern: '[A-Za-z][A-Za-z0-9_]*' });
  const form = h('form', { id: 'new-class', class: 'inline' }, name, h('button', { id: 'new-class-submit', type: 'submit' }, 'Add a class'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api('POST', `schemas/${encodeURIComponent(name.value)}`, { className: name.value });
      location.hash = `#/core/${encodeURIComponent(name.value)}`;
    } catch (error) {
      say(error.message, true);
    }
  });
  const content = h('section', { class: 'content' });
  view.append(h('div', { class: 'core' }, h('aside', { class: 'sidebar' }, h('h2', {}, 'Classes'), list, form), content));
  loadCounts(list, counts);
  const schema = schemas.find((item) => item.className === className);
  if (!schema) {
    content.append(h('p', { class: 'hint' }, className ? `No class ${className}.` : 'Choose a class, or add one.'));
    return;
  }
  await showBrowser(content, schema, objectId);
}

// One count request per class at once queued hundreds of them behind the browser's six connections to the server,
// and every later call of the page behind those (a class with a slow beforeFind trigger holds its connection for
// seconds): the counts go three at a time, and stop once the list has left the page.
function loadCounts(list, counts) {
  const next = async () => {
    while (counts.length && list.isConnected) {
      const { className, count } = counts.shift();
      try {
        count.textContent = (await api('GET', `classes/${encodeURIComponent(className)}`, undefined, { count: 1, limit: 0 })).count;
      } catch {
        count.textContent = '?';
      }
    }
  };
  for (let worker = 0; worker < 3; worker += 1) next();
}
