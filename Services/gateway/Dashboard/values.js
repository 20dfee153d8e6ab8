// Parse values shown in cells and read back from what a person typed, checked against the column's type.
import { h } from './dom.js';
import { apiURL } from './api.js';

const IMAGE = /\.(png|jpe?g|gif|webp|svg)$/i;

export function renderValue(value, field) {
  if (value === undefined || value === null) return h('span', { class: 'empty' }, '(undefined)');
  const type = field && field.type;
  if (value && typeof value === 'object' && value.__type === 'Pointer') {
    return h('a', { class: 'pointer', href: `#/core/${encodeURIComponent(value.className)}/${encodeURIComponent(value.objectId)}` },
      value.objectId);
  }
  if (value && typeof value === 'object' && value.__type === 'File') {
    // Only web addresses become links: a stored `javascript:` URL must not run when clicked.
    const url = /^https?:\/\//i.test(value.url || '') ? value.url : apiURL('files/' + encodeURIComponent(value.name));
    if (IMAGE.test(value.name || '')) {
      return h('a', { class: 'file', href: url, target: '_blank', rel: 'noopener' },
        h('img', { class: 'thumb', src: url, alt: value.name }));
    }
    return h('a', { class: 'file', href: url, target: '_blank', rel: 'noopener' }, value.name);
  }
  if (value && typeof value === 'object' && value.__type === 'Date') return value.iso;
  if (value && typeof value === 'object' && value.__type === 'GeoPoint') return `${value.latitude}, ${value.longitude}`;
  if (value && typeof value === 'object' && value.__type === 'Relation') return h('span', { class: 'relation' }, `Relation<${value.className}>`);
  if (type === 'Relation') return h('span', { class: 'relation' }, `Relation<${field.targetClass}>`);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function editText(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') {
    if (value.__type === 'Date') return value.iso;
    if (value.__type === 'Pointer') return value.objectId;
    if (value.__type === 'GeoPoint') return `${value.latitude}, ${value.longitude}`;
    return JSON.stringify(value);
  }
  return String(value);
}

export class TypeMismatch extends Error {}

// What to send for `text` typed into a cell of `field`'s type; `{__op: 'Delete'}` for an emptied cell.
export function parseInput(text, name, field) {
  const type = field ? field.type : 'String';
  if (text === '' && type !== 'String') return { __op: 'Delete' };
  switch (type) {
    case 'String': return text;
    case 'Number': {
      const number = Number(text.trim());
      if (text.trim() === '' || !Number.isFinite(number)) throw new TypeMismatch(`${name} must be a number.`);
      return number;
    }
    case 'Boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw new TypeMismatch(`${name} must be true or false.`);
    case 'Date': {
      const date = new Date(text);
      if (Number.isNaN(date.getTime())) throw new TypeMismatch(`${name} must be a date such as 2026-12-01T14:00:00.000Z.`);
      return { __type: 'Date', iso: date.toISOString() };
    }
    case 'Pointer':
      if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new TypeMismatch(`${name} must be the objectId of a ${field.targetClass}.`);
      return { __type: 'Pointer', className: field.targetClass, objectId: text };
    case 'GeoPoint': {
      const [latitude, longitude] = text.split(',').map((part) => Number(part.trim()));
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude) || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
        throw new TypeMismatch(`${name} must be "latitude, longitude".`);
      }
      return { __type: 'GeoPoint', latitude, longitude };
    }
    case 'Object': case 'Array': case 'ACL': {
      let value;
      try { value = JSON.parse(text); } catch { throw new TypeMismatch(`${name} must be JSON.`); }
      const isArray = Array.isArray(value);
      if (type === 'Array' ? !isArray : (isArray || typeof value !== 'object' || value === null)) {
        throw new TypeMismatch(`${name} must be a JSON ${type === 'Array' ? 'array' : 'object'}.`);
      }
      return value;
    }
    default:
      throw new TypeMismatch(`${name} (${type}) cannot be edited here.`);
  }
}

export const COLUMN_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'GeoPoint', 'File', 'Pointer',
  'Relation', 'Polygon', 'Bytes'];
