// The page's words: one catalogue per language (i18n/*.js, the same keys in each), chosen by
// the browser's language unless the person picks another. Every visible string goes through
// t(); the static ones in index.html name their key in a data-i18n attribute.
import en from './i18n/en.js';
import ar from './i18n/ar.js';

export const catalogues = { en, ar };
const STORAGE_KEY = 'tg-language';

let current = 'en';

export function language() {
  return current;
}

// The first of the browser's languages that has a catalogue, else English.
export function preferredLanguage(stored = null) {
  if (stored && catalogues[stored]) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (catalogues[base]) return base;
  }
  return 'en';
}

export function storedLanguage() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage refused (a sandboxed frame): the browser's language then
  }
}

export function setLanguage(code, remember = false) {
  current = catalogues[code] ? code : 'en';
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, current);
    } catch {
      // not kept for the next visit, but the page is in the chosen language
    }
  }
  document.documentElement.lang = current;
  document.documentElement.dir = t('meta.dir');
  applyStatic();
  sayAgain();
}

// A string of the catalogue; a function entry takes the arguments (counts, names, moves).
// A key missing from a catalogue is a bug of the page, so it fails loudly.
export function t(key, ...args) {
  const entry = catalogues[current][key];
  if (entry === undefined) throw new Error(`no string "${key}" in the ${current} catalogue`);
  return typeof entry === 'function' ? entry(...args) : entry;
}

export function has(key) {
  return catalogues[current][key] !== undefined;
}

// A library error in words: the catalogue's sentence for its status, for what was being done
// (a typed move, a pasted position, a rule spec) where that makes a difference. The status
// code itself is kept in a data attribute for programs, never shown.
export function errorWords(error, action, gameIds = []) {
  for (const key of [`error.${action}.${error.code}`, `error.${error.code}`]) {
    if (has(key)) return t(key, gameIds);
  }
  return t('error.unknown', error.code);
}

// The messages on show (an error, a server's refusal), each with how to word it: a language
// switch words them again. A node whose text was changed since is left alone.
const said = new Map();

export function say(node, words) {
  const text = words();
  node.textContent = text;
  said.set(node, { text, words });
}

function sayAgain() {
  for (const [node, entry] of said) {
    if (node.textContent !== entry.text) {
      said.delete(node);
      continue;
    }
    entry.text = entry.words();
    node.textContent = entry.text;
  }
}

export function showError(node, error, action, gameIds) {
  say(node, () => errorWords(error, action, gameIds));
  node.dataset.status = error.code;
}

// The tab's title: the page's name, unless title.js says it is the player's turn.
let titleSource = () => t('page.title');

export function setTitleSource(source) {
  titleSource = source;
}

export function applyStatic(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-placeholder]')) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of root.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
  document.title = titleSource();
}
