// The account panel: register, sign in, sign out (here or everywhere) and delete the account,
// through tg-server's POST /account/... endpoints (docs/server.md, "Accounts in a browser").
// The session lives in an HttpOnly cookie the page never sees; the WebSockets the page opens
// afterwards carry it, so online play is the account's. The server judges every name and
// password: the page only sends what was typed and shows the answer in words.
import { t, say, has } from './i18n.js';
import { $ } from './session.js';

let signedIn = null; // the account's name, or null

// One request; its answer as { status, body }, or null if no server answered (a page served
// without tg-server, or the server gone).
async function post(action, fields = null) {
  try {
    const response = await fetch(`account/${action}`, {
      method: 'POST',
      credentials: 'same-origin',
      body: fields ? new URLSearchParams(fields) : undefined,
    });
    const json = (response.headers.get('content-type') ?? '').startsWith('application/json');
    return { status: response.status, body: json ? await response.json() : null };
  } catch {
    return null;
  }
}

// A refusal in words: the catalogue's sentence for the server's error word, else its own text.
function refusalWords(answer) {
  if (!answer) return () => t('account.error.no-server');
  const word = answer.body?.error;
  const key = `account.error.${word}`;
  return () => (word && has(key) ? t(key) : t('account.error.other', answer.body?.message ?? String(answer.status)));
}

function show(name) {
  signedIn = name;
  $('account-form').hidden = name !== null;
  $('account-signed-in').hidden = name === null;
  $('delete-form').hidden = true;
  $('account-badge').hidden = name === null;
  if (name !== null) {
    say($('account-badge'), () => t('account.badge', name));
    say($('account-name'), () => t('account.signed-in-as', name));
  }
  document.body.dataset.account = name ?? '';
}

function refuse(errorNode, answer) {
  say(errorNode, refusalWords(answer));
  errorNode.dataset.error = answer?.body?.error ?? 'no-server';
}

async function signIn(action) {
  const form = $('account-form');
  if (!form.reportValidity()) return;
  $('account-error').textContent = '';
  const answer = await post(action, { name: $('account-user').value, password: $('account-password').value });
  if (answer?.status === 200) {
    $('account-password').value = '';
    show(answer.body.name);
    $('account-name').focus();
  } else {
    refuse($('account-error'), answer);
    $('account-password').focus();
  }
}

async function signOut(action) {
  const answer = await post(action);
  // A 401: the session had ended already (expired, revoked elsewhere): signed out all the same.
  if (answer?.status === 200 || answer?.status === 401) {
    show(null);
    $('account-user').focus();
  } else {
    refuse($('account-out-error'), answer);
  }
}

async function deleteAccount(event) {
  event.preventDefault();
  const answer = await post('delete', { password: $('delete-password').value });
  $('delete-password').value = '';
  if (answer?.status === 200) {
    show(null);
    say($('account-error'), () => t('account.deleted'));
    $('account-user').focus();
  } else {
    refuse($('delete-error'), answer);
    $('delete-password').focus();
  }
}

// Asks the server who this browser is; without a server the panel is not offered.
export async function initAccount() {
  $('account-form').addEventListener('submit', (event) => {
    event.preventDefault();
    signIn('login');
  });
  $('account-register').addEventListener('click', () => signIn('register'));
  $('account-logout').addEventListener('click', () => signOut('logout'));
  $('account-logout-all').addEventListener('click', () => signOut('logout-all'));
  $('account-delete').addEventListener('click', () => {
    $('delete-form').hidden = false;
    $('delete-error').textContent = '';
    $('delete-password').focus();
  });
  $('delete-cancel').addEventListener('click', () => {
    $('delete-form').hidden = true;
    $('account-delete').focus();
  });
  $('delete-form').addEventListener('submit', deleteAccount);
  const answer = await post('whoami');
  if (!answer || answer.body?.accounts === false) {
    $('account').hidden = true; // no tg-server behind this page (web/serve.js says so)
    return;
  }
  show(answer.status === 200 ? answer.body?.name ?? null : null);
}

export function accountName() {
  return signedIn;
}
