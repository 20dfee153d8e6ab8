// A Relation column's objects for one row (a role's users and roles, or any class's relation): listed through
// `$relatedTo`, added and removed with `AddRelation` and `RemoveRelation` on the owner.
import { api } from './api.js';
import { attempt, clear, h } from './dom.js';

export async function showRelation(panel, { className, objectId, key, targetClass }) {
  const owner = { __type: 'Pointer', className, objectId };
  const ownerPath = `classes/${encodeURIComponent(className)}/${encodeURIComponent(objectId)}`;
  const list = h('table', { id: 'relation', class: 'rows' });
  const added = h('input', { id: 'relation-add-id', placeholder: `objectId of a ${targetClass}`, required: true });
  const form = h('form', { id: 'relation-form', class: 'toolbar' }, added, h('button', { id: 'relation-add', type: 'submit' }, 'Add'));
  const change = async (op, id, done) => {
    const objects = [{ __type: 'Pointer', className: targetClass, objectId: id }];
    if (await attempt(() => api('PUT', ownerPath, { [key]: { __op: op, objects } }), done)) await load();
  };
  const load = async () => {
    const found = await api('GET', `classes/${encodeURIComponent(targetClass)}`, undefined,
      { where: { $relatedTo: { object: owner, key } }, limit: 1000, order: 'objectId' });
    clear(list).append(
      h('thead', {}, h('tr', {}, h('th', {}, 'objectId'), h('th', {}, 'name'), h('th', {}, ''))),
      h('tbody', {}, found.results.length ? found.results.map((object) => h('tr', { dataset: { objectId: object.objectId } },
        h('td', {}, h('a', { href: `#/core/${encodeURIComponent(targetClass)}/${encodeURIComponent(object.objectId)}` }, object.objectId)),
        h('td', {}, object.username || object.name || ''),
        h('td', {}, h('button', { type: 'button', class: 'relation-remove',
          onclick: () => change('RemoveRelation', object.objectId, `${object.objectId} removed from ${key}.`) }, 'Remove'))))
        : h('tr', {}, h('td', { class: 'empty', colspan: '3' }, 'No objects in this relation.'))));
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const id = added.value.trim();
    added.value = '';
    await change('AddRelation', id, `${id} added to ${key}.`);
  });
  clear(panel).append(h('h3', {}, `${className} ${objectId}: ${key} (Relation<${targetClass}>)`), form, list);
  await load();
}
