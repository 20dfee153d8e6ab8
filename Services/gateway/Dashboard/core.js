// The Core tab: the classes with their row counts, "Add a class", and the data browser of the chosen class.
import { api } from './api.js';
import { h, say } from './dom.js';
import { showBrowser } from './browser.js';

export async function showCore(view, [className, objectId]) {
  const { results: schemas } = await api('GET', 'schemas');
  schemas.sort((a, b) => a.className.localeCompare(b.className));
  const list = h('ul', { id: 'classes', class: 'classes' });
  for (const schema of schemas) {
    const count = h('span', { class: 'count', dataset: { className: schema.className } }, '…');
    list.append(h('li', { class: schema.className === className ? 'active' : '' },
      h('a', { href: `#/core/${encodeURIComponent(schema.className)}`, dataset: { className: schema.className } },
        schema.className, count)));
    api('GET', `classes/${encodeURIComponent(schema.className)}`, undefined, { count: 1, limit: 0 })
      .then((answer) => { count.textContent = answer.count; })
      .catch(() => { count.textContent = '?'; });
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
  const schema = schemas.find((item) => item.className === className);
  if (!schema) {
    content.append(h('p', { class: 'hint' }, className ? `No class ${className}.` : 'Choose a class, or add one.'));
    return;
  }
  await showBrowser(content, schema, objectId);
}
