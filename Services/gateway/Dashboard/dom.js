// Builds elements from plain values: text always goes in as text, never as markup.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value !== undefined && value !== null) element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

export function clear(element) {
  while (element.firstChild) element.firstChild.remove();
  return element;
}

// Runs a change and says how it went: `done` when it worked, the server's message when not. True when it worked.
export async function attempt(change, done) {
  try {
    await change();
    say(done);
    return true;
  } catch (error) {
    say(error.message, true);
    return false;
  }
}

export function say(text, isError = false) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.classList.toggle('error', isError);
}
