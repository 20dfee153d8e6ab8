// The GraphQL console: a document and its variables sent to the GraphQL API with the master key (through the
// dashboard's session, so the key stays on the server) or as a user's session token, the answer shown as it came,
// and the schema's docs read by introspection: each type with its fields, their arguments and descriptions.
import { appHeaders, currentAppId, session } from './api.js';
import { h, say } from './dom.js';

const introspection = `{ __schema { queryType { name } mutationType { name } types { name kind description
  fields { name description args { name type { ...Ref } } type { ...Ref } }
  inputFields { name description type { ...Ref } } enumValues { name } } } }
  fragment Ref on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`;

function typeName(type) {
  if (!type) return '';
  if (type.kind === 'NON_NULL') return typeName(type.ofType) + '!';
  if (type.kind === 'LIST') return '[' + typeName(type.ofType) + ']';
  return type.name;
}

async function send(query, variables, as, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (as === 'master') {
    // The chosen app's master key, added by the server.
    Object.assign(headers, { 'X-Parse-Dashboard-Token': session().csrfToken }, appHeaders());
  } else {
    headers['X-Parse-Application-Id'] = currentAppId();
    headers['X-Parse-Session-Token'] = token;
  }
  const response = await fetch(session().graphQLPath, {
    method: 'POST', credentials: as === 'master' ? 'same-origin' : 'omit', cache: 'no-store', headers,
    body: JSON.stringify({ query, variables }),
  });
  return { status: `${response.status} ${response.statusText}`, text: await response.text() };
}

function showType(docs, types, name) {
  const type = types.get(name);
  if (!type) return;
  const link = (ref) => {
    const base = typeName(ref).replace(/[[\]!]/g, '');
    return types.has(base) ? h('a', { href: '#', dataset: { type: base } }, typeName(ref)) : typeName(ref);
  };
  const entries = (type.fields || type.inputFields || []).map((field) => h('li', {},
    h('code', {}, field.name), field.args && field.args.length ? ['(', field.args.map((arg, index) => [index ? ', ' : '', arg.name, ': ', link(arg.type)]), ')'] : '',
    ': ', link(field.type), field.description ? h('p', { class: 'muted' }, field.description) : ''));
  const values = (type.enumValues || []).map((value) => h('li', {}, h('code', {}, value.name)));
  docs.replaceChildren(h('h3', { id: 'graphql-doc-title' }, `${type.name} (${type.kind.toLowerCase()})`),
    type.description ? h('p', {}, type.description) : '', h('ul', { id: 'graphql-doc-fields' }, entries, values));
}

export async function showGraphQL(view) {
  if (!session().graphQLPath) {
    view.append(h('p', { class: 'card' }, 'The GraphQL API is not served by this server (PARSE_SERVER_MOUNT_GRAPHQL).'));
    return;
  }
  const query = h('textarea', { id: 'graphql-query', rows: 10, placeholder: '{ health }', required: true });
  const variables = h('textarea', { id: 'graphql-variables', rows: 3, placeholder: '{"id": "..."}' });
  const as = h('select', { id: 'graphql-as' }, h('option', { value: 'master' }, 'master key'),
    h('option', { value: 'session' }, 'session token'));
  const token = h('input', { id: 'graphql-token', placeholder: 'r:...', hidden: true });
  as.addEventListener('change', () => { token.hidden = as.value !== 'session'; });
  const status = h('p', { id: 'graphql-status' });
  const answer = h('pre', { id: 'graphql-answer', class: 'card' });
  const typeList = h('select', { id: 'graphql-types' });
  const docs = h('div', { id: 'graphql-docs' });
  const form = h('form', { id: 'graphql-form', class: 'card' }, h('h2', {}, 'GraphQL console'),
    h('label', {}, 'Document', query), h('label', {}, 'Variables (JSON)', variables),
    h('div', { class: 'toolbar' }, as, token, h('button', { id: 'graphql-run', type: 'submit' }, 'Run')));
  view.append(form, status, answer, h('section', { class: 'card' }, h('div', { class: 'toolbar' }, h('h2', {}, 'Schema'), typeList), docs));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let given = {};
    if (variables.value.trim()) {
      try { given = JSON.parse(variables.value); } catch { say('The variables must be JSON.', true); return; }
    }
    const reply = await send(query.value, given, as.value, token.value.trim());
    status.textContent = reply.status;
    try { answer.textContent = JSON.stringify(JSON.parse(reply.text), null, 2); } catch { answer.textContent = reply.text; }
    say('');
  });
  const schema = JSON.parse((await send(introspection, {}, 'master')).text);
  if (!schema.data) { say('The schema could not be read: ' + JSON.stringify(schema.errors), true); return; }
  const types = new Map(schema.data.__schema.types.filter((type) => !type.name.startsWith('__')).map((type) => [type.name, type]));
  const first = [schema.data.__schema.queryType.name, schema.data.__schema.mutationType && schema.data.__schema.mutationType.name].filter(Boolean);
  const names = [...first, ...[...types.keys()].filter((name) => !first.includes(name)).sort()];
  typeList.replaceChildren(...names.map((name) => h('option', { value: name }, name)));
  typeList.addEventListener('change', () => showType(docs, types, typeList.value));
  docs.addEventListener('click', (event) => {
    const target = event.target.closest('a[data-type]');
    if (!target) return;
    event.preventDefault();
    typeList.value = target.dataset.type;
    showType(docs, types, target.dataset.type);
  });
  showType(docs, types, names[0]);
}
