// The lobby (docs/web.md, "Lobby"): the seeks and live matches tg-server pushes to a page that
// asked with `lobby`, on a WebSocket of the lobby's own (a seek lives as long as the
// connection that made it). The WebSocket carries the Account panel's session cookie, so it
// plays as the account (account.js); a sign-in or sign-out opens it again as the new one. The
// page makes a seek of the New game form's rule spec, takes another's with one click, and
// watches a live match; a match made either way is joined as any online match, by its token
// (online.js).
import { t, say } from './i18n.js';
import { $ } from './session.js';
import { Replies } from './replies.js';
import { serverUrl, enterMatch, errorText } from './online.js';
import { openPlayerPage } from './history.js';

let socket = null;
const replies = new Replies();
const seeks = new Map(); // id -> the words of its `lobby seek` line
const live = new Map(); // id -> the words of its `lobby live` line
let signedIn = null;

function request(line) {
  return replies.ask(socket, line);
}

function onLine(line) {
  if (!line.startsWith('lobby ')) {
    replies.answer(line);
    return;
  }
  const words = line.split(' ');
  const [, kind, id] = words;
  if (kind === 'seek') seeks.set(id, words);
  else if (kind === 'unseek') seeks.delete(id);
  else if (kind === 'live') live.set(id, words);
  else if (kind === 'ended') live.delete(id);
  else if (kind === 'matched') enterMatch(words[3], words[4], words[5]);
  renderLists();
}

function connect() {
  return new Promise((resolve) => {
    const ws = new WebSocket(serverUrl());
    socket = ws;
    ws.addEventListener('open', () => resolve(true));
    ws.addEventListener('error', () => resolve(false));
    ws.addEventListener('message', (event) => onLine(String(event.data)));
    ws.addEventListener('close', () => {
      if (socket === ws) forget('the connection to the server was lost');
    });
  });
}

let opening = null;

// Connects and subscribes once; every caller waits for the same opening.
export function openLobby() {
  if (!opening) opening = subscribe();
  return opening;
}

async function subscribe() {
  if (!(await connect())) {
    opening = null;
    say($('lobby-error'), () => t('online.no-server'));
    return;
  }
  const reply = await request('lobby');
  if (!reply.startsWith('ok')) say($('lobby-error'), () => errorText(reply));
  // ok NAME [ratings...], or ok - for a guest: whom the server takes this connection for.
  const who = (await request('whoami')).split(' ');
  signedIn = who[0] === 'ok' && who[1] !== '-' ? who[1] : null;
  renderWho();
  renderLists();
}

// Signed in or out in the Account panel: the lobby's connection is the old account's (or a
// guest's), so it is opened again, as the new one; its seeks go with the old connection.
function onAccountChange() {
  if (!socket) return;
  const old = socket;
  forget('the lobby is reconnecting');
  old.close();
  openLobby();
}

// The lobby's connection is gone or given up: whatever waited on it is answered now, and the
// server forgot its seeks, so the lists are emptied until the next open brings them again.
function forget(why) {
  socket = null;
  opening = null;
  replies.drop(why);
  seeks.clear();
  live.clear();
  signedIn = null;
  renderLists();
  renderWho();
}

function renderWho() {
  const who = signedIn;
  say($('lobby-who'), () => (who ? t('lobby.signed-in', who) : t('lobby.guest')));
}

// A time control as a person reads it: clock=M+S as M+S, days=N in words.
const controlText = (word) => (word.startsWith('days=') ? t('lobby.days', Number(word.slice(5))) : word.slice(6));

// One line of the list: the words of the server's line, the rating and the clock as a person
// reads them, and the button that acts.
function item(text, buttonText, onClick) {
  const li = document.createElement('li');
  li.append(text, ' ');
  const button = Object.assign(document.createElement('button'), { type: 'button', textContent: buttonText });
  button.addEventListener('click', onClick);
  li.append(button);
  return li;
}

// A way from a name in the lobby to that player's page (the History panel).
function playerLink(name) {
  const button = Object.assign(document.createElement('button'), { type: 'button', textContent: t('lobby.player-page', name) });
  button.dataset.player = name;
  button.addEventListener('click', () => openPlayerPage(name));
  return button;
}

// Also after a language switch: the lists' words are the catalogue's.
export function renderLists() {
  const seekList = $('seek-list');
  seekList.replaceChildren();
  for (const [id, w] of seeks) {
    // lobby seek ID OWNER RATING SPEC clock=M+S CATEGORY rated|casual [range=..] [to=NAME]
    const mine = signedIn !== null && w[3] === signedIn;
    const text = t('lobby.seek-line', w[3], w[4], w[5], controlText(w[6]), t(`lobby.${w[7]}`), t(`lobby.${w[8]}`));
    const li = mine ? item(text, t('lobby.withdraw'), () => withdraw(id))
      : item(text, t('lobby.accept'), () => acceptSeek(id));
    li.dataset.seek = id;
    if (w[3] !== 'guest') li.append(' ', playerLink(w[3]));
    seekList.append(li);
  }
  $('seek-none').hidden = seeks.size > 0;
  const liveList = $('live-list');
  liveList.replaceChildren();
  for (const [id, w] of live) {
    // lobby live ID SPEC clock=M+S rated|casual NAME0 NAME1
    const li = item(t('lobby.live-line', w[6], w[7], w[3], controlText(w[4])), t('lobby.watch'), () => enterMatch(id, null, null));
    li.dataset.match = id;
    for (const name of [w[6], w[7]]) if (name !== 'guest') li.append(' ', playerLink(name));
    liveList.append(li);
  }
  $('live-none').hidden = live.size > 0;
}

async function withdraw(id) {
  const reply = await request(`unseek ${id}`);
  if (reply.startsWith('ok')) seeks.delete(id);
  renderLists();
}

async function acceptSeek(id) {
  $('lobby-error').textContent = '';
  const reply = await request(`accept-seek ${id}`);
  if (!reply.startsWith('ok')) {
    say($('lobby-error'), () => errorText(reply));
    return;
  }
  // The server tells everyone else the seek is gone; the connection that took it has its reply.
  seeks.delete(id);
  renderLists();
  const [, match, seat, token] = reply.split(' ');
  enterMatch(match, seat, token);
}

async function seek(event) {
  event.preventDefault();
  $('lobby-error').textContent = '';
  await openLobby();
  const spec = $('spec-input').value.trim();
  const days = $('lobby-days').value; // days per move: a correspondence game, in place of a clock
  const control = days ? `days=${days}` : `clock=${$('lobby-clock').value.trim()}`;
  const reply = await request(`seek ${spec} ${control} ${$('lobby-rated').checked ? 'rated' : 'casual'}`);
  if (!reply.startsWith('ok')) say($('lobby-error'), () => errorText(reply));
}

export function wireLobby() {
  renderWho();
  renderLists();
  // No tg-server behind the page (the Account panel finds out and hides): no lobby either.
  new MutationObserver(() => {
    $('lobby').hidden = $('account').hidden;
  }).observe($('account'), { attributes: true, attributeFilter: ['hidden'] });
  $('lobby').addEventListener('toggle', () => {
    if ($('lobby').open) openLobby();
  });
  let account = document.body.dataset.account;
  new MutationObserver(() => {
    if (document.body.dataset.account === account) return;
    account = document.body.dataset.account;
    onAccountChange();
  }).observe(document.body, { attributes: true, attributeFilter: ['data-account'] });
  $('lobby-seek-form').addEventListener('submit', seek);
}
