// Online: a match on tg-server, over WebSocket.
//
// The server keeps the match: its moves, its throws, its clocks. This page holds a copy of the
// game in its own tg.State, kept in step by the events the server pushes (docs/server.md):
// `moves FROM M...` is applied move by move with the library, `undone N` takes back to ply N.
// A seat's decisions are sent as `play`, and shown only once the server's event comes back.
import { TGError } from './traditional-games/traditional-games.js';
import { t, has, say } from './i18n.js';
import { Replies } from './replies.js';
import { S, $, params } from './session.js';
import { render, renderClock } from './panels.js';
import {
  advance, invalidate, lastThrowIn, playOut, record, replaceState, setPhase,
} from './controller.js';

// ?bot=SPEC: the page's own seat is played by a bot of the page (for unattended matches).
const onlineBot = params.get('bot');
let socket = null;
const replies = new Replies();
let reconnectDelay = 250;
let clockTimer = null;
let keepAliveTimer = null;
const KEEP_ALIVE_MS = 60000;

export function serverUrl() {
  if (params.has('server')) return params.get('server');
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
}

export function request(line) {
  return replies.ask(socket, line);
}

// The server's refusal in words: its fixed WORD (docs/server.md) names a catalogue sentence;
// a WORD the catalogue does not know shows the server's own text.
export function errorText(reply) {
  const word = reply.split(' ')[1];
  return has(`server.${word}`) ? t(`server.${word}`) : t('server.other', reply.split(' ').slice(2).join(' ') || reply);
}

// The connection line, worded through say() so that a language switch words it again.
function setConnection(words, stateName) {
  const box = $('connection');
  const line = $('connection-text');
  box.hidden = false;
  box.replaceChildren(line); // an earlier refusal's way back goes
  say(line, words);
  box.setAttribute('data-state', stateName);
  document.body.setAttribute('data-connection', stateName);
}

function connect(onOpen) {
  const ws = new WebSocket(serverUrl());
  socket = ws;
  ws.addEventListener('open', () => {
    reconnectDelay = 250;
    onOpen();
  });
  ws.addEventListener('message', (event) => {
    const line = String(event.data);
    if (line.startsWith('event ')) onEvent(line.split(' '));
    else replies.answer(line);
  });
  ws.addEventListener('close', () => {
    if (socket !== ws) return;
    socket = null;
    replies.drop('the connection to the server was lost');
    if (!S.online) return;
    // Nothing is lost: the server stored every acknowledged move; the page asks again for
    // what it missed once it is back.
    const seconds = (reconnectDelay / 1000).toFixed(1);
    setConnection(() => t('online.lost', seconds), 'reconnecting');
    setTimeout(() => connect(() => subscribe(true)), reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 5000);
  });
}

// The match a link names, from the address's fragment (#match=ID&seat=S&token=T, or
// &invite=I for the second seat): a fragment never reaches a server's logs or a Referer.
export function linkFields() {
  return new URLSearchParams(location.hash.slice(1));
}

export function joinMatch(id, seat, token, invite = null) {
  // waitingFor: the seat that has not joined yet, -1 until the server has said (nothing is
  // playable meanwhile), null once both seats are taken.
  S.online = {
    id, seat: seat === null || seat === undefined || token === null ? null : Number(seat),
    token, invite, waitingFor: -1, clock: null, result: null, undoBy: null, drawBy: null, sending: false, notSent: false,
  };
  $('new-game').open = false;
  setConnection(() => t('online.connecting'), 'connecting');
  if (socket && socket.readyState === WebSocket.OPEN) subscribe(false);
  else connect(() => subscribe(false));
}

// Whether the match exists and the link's token is one of its seats, asked before the page
// shows anything playable. The server checks a token before anything else a change needs,
// so a change that cannot happen (an undo answer at a ply no match reaches) tells a forged
// token (bad-token) from a real one (any other refusal) and changes nothing.
async function checkLink() {
  const { online } = S;
  if (online.invite) return takeSeat();
  const probe = online.seat === null ? `show ${online.id}`
    : `decline ${online.id} 18446744073709551615 ${/^[0-9a-f]{32}$/.test(online.token) ? online.token : '0'.repeat(32)}`;
  const reply = await request(probe);
  const word = reply.split(' ')[1];
  if (word === 'no-such-match' || word === 'set-aside') {
    refuse(word === 'no-such-match' ? 'online.no-match' : 'online.set-aside', online.id);
    return false;
  }
  if (word === 'disconnected') return false;
  if (word === 'bad-token') {
    online.seat = null;
    online.token = null;
    online.forged = true;
  }
  return true;
}

// An invite is spent once: `join ID INVITE` hands its seat's token to this page, which keeps
// the token in the fragment instead (a reload then uses the seat, not the spent invite).
async function takeSeat() {
  const { online } = S;
  const reply = await request(`join ${online.id} ${/^[0-9a-f]{32}$/.test(online.invite) ? online.invite : '0'.repeat(32)}`);
  const word = reply.split(' ')[1];
  online.invite = null;
  if (word === 'no-such-match' || word === 'set-aside') {
    refuse(word === 'no-such-match' ? 'online.no-match' : 'online.set-aside', online.id);
    return false;
  }
  if (word === 'disconnected') return false;
  if (reply.startsWith('ok')) {
    const [, seat, token] = reply.split(' ');
    online.seat = Number(seat);
    online.token = token;
    history.replaceState(null, '', shareLink(location.search, { match: online.id, seat, token }));
    return true;
  }
  // already-joined: the link's seat was taken (by this link before, or by another page).
  online.forged = word === 'already-joined' ? 'online.invite-used' : 'online.bad-invite';
  return true;
}

// No such match: nothing on the page can act, so only the words and a way back are shown.
function refuse(key, id) {
  setConnection(() => t(key, id), 'refused');
  const back = Object.assign(document.createElement('a'), { href: location.pathname, textContent: t('online.play-here') });
  back.dataset.i18n = 'online.play-here';
  $('connection').append(' ', back);
  document.querySelector('main').hidden = true;
  $('tagline').textContent = t('online.no-match-tagline');
  $('rules-line').textContent = '';
  setPhase('refused');
  S.online = null;
}

// `watch ID PLY` answers with the match's spec, then the events since the ply this page last saw.
async function subscribe(again) {
  const { online } = S;
  if (!again && !(await checkLink())) return;
  // An open draw offer comes again with the catch-up; one withdrawn meanwhile does not.
  online.drawBy = null;
  const reply = await request(`watch ${online.id} ${S.state && online.spec ? S.log.length : 0}`);
  if (!reply.startsWith('ok')) {
    setConnection(() => t('online.refused', errorText(reply)), 'refused');
    return;
  }
  const fields = Object.fromEntries(reply.split(' ').slice(2).map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]));
  if (!online.spec) {
    online.spec = fields.spec;
    const mine = online.seat;
    S.seats = [0, 1].map((p) => (p === mine ? onlineBot ?? 'person' : 'remote'));
    replaceState(new S.tg.State(fields.spec));
  }
  // Before the second seat joins nothing can be played: the match waits (show's waiting-for).
  const now = await request(`show ${online.id}`);
  const waiting = / waiting-for=([01])/.exec(now);
  online.waitingFor = now.startsWith('ok') && waiting ? Number(waiting[1]) : null;
  if (again) {
    // The server knows how many plies this page had, not which: if a ply it saw was taken back
    // and replaced while it was away, the positions differ now (the reply to `show` comes
    // after the catch-up events), and the page starts its copy again from the first ply.
    const position = now.slice(now.indexOf(' position=') + 10);
    if (now.startsWith('ok') && position !== S.state.toString()) {
      replaceState(new S.tg.State(online.spec));
      await request(`watch ${online.id} 0`);
    }
  }
  const { forged, rematchOf, id } = online;
  if (forged) setConnection(() => t(forged === true ? 'online.bad-token' : forged, id), 'refused');
  else if (online.waitingFor !== null && online.seat !== null) setConnection(() => t(rematchOf ? 'online.waiting-rematch' : 'online.waiting-join'), 'connected');
  else setConnection(() => t(again ? 'online.reconnected' : 'online.connected'), 'connected');
  // Whatever was waiting on the lost connection (a move being sent) is over: the catch-up
  // above has brought every move the server stored, and the page is playable again (or, before
  // the join, waits for it).
  invalidate();
  advance();
  // A person may think for longer than the server's --idle-timeout: a cheap read now and then
  // keeps the connection (it is a command like any other).
  clearInterval(keepAliveTimer);
  const ws = socket;
  keepAliveTimer = setInterval(() => {
    if (socket === ws) request(`show ${online.id}`);
    else clearInterval(keepAliveTimer);
  }, KEEP_ALIVE_MS);
}

function onEvent(words) {
  // event ID KIND ...
  const { online } = S;
  if (!online || words[1] !== online.id) return;
  const kind = words[2];
  if (kind === 'joined') {
    online.waitingFor = null;
    const { rematchOf } = online;
    if (online.seat !== null && !online.forged) setConnection(() => t(rematchOf ? 'online.rematch-joined' : 'online.joined'), 'connected');
    invalidate();
    advance();
  } else if (kind === 'moves') {
    const from = Number(words[3]);
    if (from > S.log.length) {
      // Plies were missed: ask for them again.
      subscribe(true);
      return;
    }
    takeBackTo(from);
    try {
      for (const name of words.slice(4)) record(S.state.moveFromString(name));
    } catch (error) {
      // The moves do not follow from this page's copy: a move it saw was taken back while it
      // was away. Start the copy again from the first ply.
      if (!(error instanceof TGError)) throw error;
      replaceState(new S.tg.State(online.spec));
      subscribe(true);
      return;
    }
    online.sending = false;
    online.undoBy = null;
    if (online.notSent) $('move-error').textContent = '';
    online.notSent = false;
    invalidate();
    // One new decision (a move as it happens, not a catch-up) plays out on the board.
    if (words.length === 5 && from === S.log.length - 1) playOut();
    else advance();
  } else if (kind === 'undone') {
    takeBackTo(Number(words[3]));
    online.undoBy = null;
    online.sending = false;
    invalidate();
    advance();
  } else if (kind === 'clock') {
    online.clock = { left: [Number(words[3]), Number(words[4])], running: words[5] === '-' ? null : Number(words[5]), at: performance.now() };
    tickClocks();
  } else if (kind === 'undo-requested') {
    online.undoBy = Number(words[3]);
    render();
  } else if (kind === 'undo-declined') {
    online.undoBy = null;
    const timedOut = words[4] === 'by=timeout';
    if (online.seat !== null && (timedOut || Number(words[3]) !== online.seat)) {
      say($('move-error'), () => t(timedOut ? 'online.undo-timeout' : 'online.undo-declined'));
    }
    render();
  } else if (kind === 'draw-offered') {
    online.drawBy = Number(words[3]);
    render();
  } else if (kind === 'draw-declined' || kind === 'draw-withdrawn' || kind === 'draw-lapsed') {
    // draw-declined names the seat that declined, the other two the seat that had offered.
    const offerer = kind === 'draw-declined' ? 1 - Number(words[3]) : Number(words[3]);
    online.drawBy = null;
    if (online.seat !== null) {
      const key = { 'draw-declined': 'online.draw-declined', 'draw-withdrawn': 'online.draw-withdrawn', 'draw-lapsed': 'online.draw-lapsed' }[kind];
      // Told to the seat that did not act (the one that acted has its reply); a lapse, to the
      // seat whose offer it was.
      const told = kind === 'draw-withdrawn' ? offerer !== online.seat : offerer === online.seat;
      if (told) say($('move-error'), () => t(key));
    }
    render();
  } else if (kind === 'rematch') {
    // A seat asked for a rematch (this page's own request, whose reply follows, or the
    // opponent's: then this page offers to take it).
    online.rematch = words[3];
    render();
  } else if (kind === 'result') {
    online.result = { winner: words[3], by: (words[4] ?? 'by=rules').slice(3) };
    online.drawBy = null;
    if (online.clock) online.clock.running = null;
    invalidate();
    advance();
  }
}

function takeBackTo(ply) {
  while (S.log.length > ply) {
    S.state.undo();
    S.log.pop();
  }
  S.lastThrow = lastThrowIn(S.log);
}

// Refusals that say "not now, try again": another change to the match is being made (busy),
// or, on a site of several servers, the match is being played or taken over through another
// server (leased) or this server's copy is a change behind (stale). The same move is sent again
// while the page still stands where it was, up to RESEND_TRIES times (about 6 s in all).
const RESEND_WORDS = new Set(['busy', 'leased', 'stale']);
const RESEND_TRIES = 30;
const RESEND_DELAY_MS = 200;

export async function sendMove(move, tries = 0) {
  const { online } = S;
  const name = S.state.moveToString(move);
  const ply = S.log.length;
  online.sending = true;
  setPhase('sending');
  const reply = await request(`play ${online.id} ${ply} ${name} ${online.token}`);
  if (reply.startsWith('ok')) return; // the event has brought the move, or is on its way
  online.sending = false;
  // stale-ply means the page is behind: the events will bring it up to date.
  const word = reply.split(' ')[1];
  if (RESEND_WORDS.has(word) && tries < RESEND_TRIES) {
    setTimeout(() => {
      if (S.phase !== 'sending' || online.sending) return; // the events moved the page on
      if (S.log.length === ply) sendMove(move, tries + 1);
      else advance();
    }, RESEND_DELAY_MS);
    return;
  }
  if (word === 'disconnected') {
    // Not sent (or its answer lost with the connection): the person plays it again once the
    // page is back; the catch-up then shows it if the server did store it.
    online.notSent = true;
    say($('move-error'), () => t('online.not-sent'));
    advance();
    return;
  }
  if (word !== 'stale-ply') say($('move-error'), () => errorText(reply));
  advance();
}

// A seat the page's ?bot= plays: the server's bot chooses and plays its move (`bot ID PLY
// SPEC TOKEN`), so that the page runs no engine during a match and the server's rules on bots
// hold (refused for a rated match's seats, or on a clock with --no-bots-on-clock).
export async function askServerBot(gen) {
  const { online } = S;
  const reply = await request(`bot ${online.id} ${S.log.length} ${S.seats[online.seat]} ${online.token}`);
  if (reply.startsWith('ok') || gen !== S.generation) return; // the move comes as an event
  const word = reply.split(' ')[1];
  // Behind (the events bring the page up to date) or cut off (the catch-up asks again).
  if (word === 'stale-ply' || word === 'disconnected') return;
  if (word === 'rate-limited' || RESEND_WORDS.has(word)) {
    setTimeout(() => { if (gen === S.generation && S.phase === 'bot') askServerBot(gen); }, 1000);
    return;
  }
  setPhase('error');
  say($('status-text'), () => t('status.bot-failed', errorText(reply)));
}

// The server decides when a flag falls; the page only counts down between its events.
function tickClocks() {
  if (!document.getElementById('clock-0')) render();
  renderClock(0);
  renderClock(1);
  clearTimeout(clockTimer);
  if (S.online.clock.running !== null) clockTimer = setTimeout(tickClocks, 100);
}

export function requestUndo() {
  const { online } = S;
  if (online.seat === null) return;
  request(`undo ${online.id} ${S.log.length} ${online.token}`).then((reply) => {
    say($('move-error'), () => (reply.startsWith('ok') ? t('online.undo-asked') : errorText(reply)));
  });
}

export async function answerUndo(word) {
  const { online } = S;
  const reply = await request(`${word} ${online.id} ${S.log.length} ${online.token}`);
  if (!reply.startsWith('ok')) say($('move-error'), () => errorText(reply));
}

// Draw offers (docs/server.md, "Draw offers"): this seat offers, or withdraws its own open
// offer; the other seat accepts or declines. The server pushes each to both pages and the
// watchers; an accepted offer ends the match (`result draw by=agreement`).
export async function offerOnlineDraw() {
  const { online } = S;
  if (online?.seat === null || online.result) return;
  const word = online.drawBy === online.seat ? 'withdraw-draw' : 'offer-draw';
  const reply = await request(`${word} ${online.id} ${S.log.length} ${online.token}`);
  say($('move-error'), () => (reply.startsWith('ok') ? (word === 'offer-draw' ? t('online.draw-asked') : '') : errorText(reply)));
}

export async function answerDraw(word) {
  const { online } = S;
  const reply = await request(`${word}-draw ${online.id} ${S.log.length} ${online.token}`);
  if (!reply.startsWith('ok')) say($('move-error'), () => errorText(reply));
}

// Rematch, seats swapped (docs/server.md, `rematch ID TOKEN`): the first seat to ask gets the
// new match's other seat, the other seat's own request then joins it to the swapped one;
// either way the reply is the new match, this page's seat of it and that seat's token, and
// the page moves to it. A watcher follows the rematch as a watcher.
export async function requestRematch() {
  const { online } = S;
  if (!online) return;
  if (online.seat === null) {
    if (online.rematch) moveToMatch(online.rematch, null, null);
    return;
  }
  online.rematchAsked = true;
  const reply = await request(`rematch ${online.id} ${online.token}`);
  if (!reply.startsWith('ok')) {
    online.rematchAsked = false;
    say($('move-error'), () => errorText(reply));
    return;
  }
  const [, id, seat, token] = reply.split(' ');
  moveToMatch(id, seat, token, online.id);
}

function moveToMatch(id, seat, token, rematchOf = null) {
  const old = S.online.id;
  request(`unwatch ${old}`);
  clearTimeout(clockTimer);
  $('move-error').textContent = '';
  $('online-links').hidden = true;
  const fragment = seat === null ? { match: id } : { match: id, seat, token };
  history.replaceState(null, '', shareLink(location.search, fragment));
  S.online = null;
  joinMatch(id, seat, token);
  S.online.rematchOf = rematchOf;
}

export function resign() {
  const { online } = S;
  if (online?.seat === null || !confirmResign()) return;
  request(`resign ${online.id} ${online.token}`);
}

function confirmResign() {
  return params.get('speed') === 'fast' || window.confirm(t('online.confirm-resign'));
}

// A link to this page: its options (?speed, ?bot) in the query, the match and its secrets in
// the fragment.
function shareLink(search, fragment) {
  const url = new URL(location.href);
  url.search = search;
  url.hash = new URLSearchParams(fragment).toString();
  return url.toString();
}

export async function createOnlineMatch(event) {
  event.preventDefault();
  const spec = $('spec-input').value.trim();
  const clock = $('clock-input').value.trim();
  const days = $('days-input').value; // days per move: a correspondence game, in place of a clock
  $('online-error').textContent = '';
  const open = socket && socket.readyState === WebSocket.OPEN;
  if (!open) {
    await new Promise((resolve, reject) => {
      connect(resolve);
      socket.addEventListener('error', () => reject(new Error('no server')), { once: true });
    }).catch(() => null);
  }
  const control = days ? ` days=${days}` : clock ? ` clock=${clock}` : '';
  const reply = await request(`new ${spec}${control}`);
  if (!reply.startsWith('ok')) {
    say($('online-error'), () => (reply.startsWith('err disconnected') ? t('online.no-server') : errorText(reply)));
    return;
  }
  // ok ID TOKEN INVITE: this page's seat (0) and the invite its opponent's link carries.
  const [, id, token, invite] = reply.split(' ');
  $('link-opponent').value = shareLink('', { match: id, invite });
  $('link-watch').value = shareLink('', { match: id });
  $('online-links').hidden = false;
  enterMatch(id, '0', token);
}

// This page takes a seat of match id (or, seat null, watches it): the fragment names it, so a
// reload comes back to it. The lobby's matches come this way too.
export function enterMatch(id, seat, token) {
  if (S.online) request(`unwatch ${S.online.id}`);
  const fragment = seat === null ? { match: id } : { match: id, seat, token };
  history.replaceState(null, '', shareLink(location.search, fragment));
  S.online = null;
  joinMatch(id, seat, token);
}

