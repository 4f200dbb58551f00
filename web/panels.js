// Everything around the board: the seat bars and clocks, the status line, the Tab sticks and
// choice buttons, the move list, the game-over banner, the New game form built from the
// library's catalogue. Each is redrawn from the session by render().
import { DRAW, MOVE_PASS, CELL_DEAD } from './traditional-games/traditional-games.js';
import { drawBoard, drawSticks, markPreview, scrollCellsIntoView } from './board.js';
import { t, has } from './i18n.js';
import {
  S, $, originCell, positionFields, specOption, boardSignature, lastDecision, personToDecide, snapshot,
  replayAt, cellsOf, engineClosed, analysisOpen,
} from './session.js';
import { activateCell, hoverCell, playPerson, lastThrowIn } from './controller.js';
import { EVENT, endReasonName, storyLine, storyOf } from './story.js';
import { levelsOf, levelOf, levelsRead, loadRatings, ratingsOf, ratingsRead, specHow } from './levels.js';
import { setLiveTurn } from './title.js';

export const sideName = (player) => t(`side.${player}`);

export function seatLabel(player) {
  const { online, seats } = S;
  if (online) {
    const who = t(online.seat === player ? 'seat.you' : online.seat === null ? 'seat.player' : 'seat.opponent');
    return seats[player] !== 'person' && seats[player] !== 'remote' ? t('seat.with-bot', who, botName(seats[player])) : who;
  }
  return seats[player] === 'person' ? t('seat.person') : t('seat.bot', botName(seats[player]));
}

// A level of the game by its name; a spec that is no level of it (a ?bot= of the address) as
// it is written.
export function botName(spec, gameId = S.state?.gameId) {
  const level = levelOf(spec, gameId);
  return level && has(`level.${level.name}`) ? t(`level.${level.name}`) : spec;
}

// What a level does, in words from its spec ("search, 5,000 positions a move").
function levelHow(spec) {
  const how = specHow(spec);
  return how ? t(...how) : spec;
}

// A seat's choice: the level's name and, for the game chosen in the form, its measured rating.
function seatOptionText(spec, gameId) {
  if (spec === 'person') return t('seat.person');
  const name = botName(spec, gameId);
  const rating = ratingsOf(gameId)?.bySpec.get(spec);
  if (!rating) return t('seat.bot', name);
  return rating.halfWidth > 0
    ? t('seat.level-rated', name, Math.round(rating.elo))
    : t('seat.level-anchor', name);
}

// What a level is, and its rating's interval: shown when the pointer is on it.
function seatOptionTitle(spec, gameId) {
  if (!levelOf(spec, gameId)) return '';
  const how = levelHow(spec);
  const rating = ratingsOf(gameId)?.bySpec.get(spec);
  if (!rating) return how;
  return rating.halfWidth > 0
    ? t('seat.level-interval', how, Math.round(rating.elo), Math.round(rating.halfWidth))
    : t('seat.level-anchor-title', how);
}

// The seat choices for a game: a person and the game's levels (docs/ratings/levels.json), with
// their ratings once they are read (docs/ratings/<game>.json). A seat that was a level stays
// that level when another game is chosen: the same name, that game's spec.
export function fillSeats(gameId = $('game-select').value) {
  const levels = levelsOf(gameId);
  for (const select of [$('seat0'), $('seat1')]) {
    const value = select.value;
    const wasLevel = levelOf(value, select.dataset.game);
    select.replaceChildren();
    for (const seat of ['person', ...levels.map((level) => level.spec)]) {
      select.appendChild(Object.assign(document.createElement('option'), {
        value: seat, textContent: seatOptionText(seat, gameId), title: seatOptionTitle(seat, gameId),
      }));
    }
    select.dataset.game = gameId;
    const same = wasLevel && levels.find((level) => level.name === wasLevel.name);
    if (same) select.value = same.spec;
    else if (value) select.value = value;
    if (select.selectedIndex < 0) select.value = 'person';
    showSeatTitle(select);
  }
  const rated = ratingsOf(gameId);
  const note = $('levels-note');
  note.replaceChildren();
  if (!levelsRead()) {
    note.textContent = t('new.levels-unread');
  } else if (gameId && levels.length === 0) {
    note.textContent = t('new.levels-none');
  } else if (rated) {
    // What each level is, then where its rating comes from; the rule spec stays left to right.
    const list = document.createElement('span');
    list.textContent = `${levels.map((l) => `${botName(l.spec, gameId)}: ${levelHow(l.spec)}`).join(t('new.levels-separator'))}. `;
    const rules = Object.assign(document.createElement('code'), { dir: 'ltr', textContent: rated.rules });
    note.append(list, `${t('new.levels-note')} `, rules, '.');
  }
  if (gameId && !ratingsRead(gameId)) {
    loadRatings(gameId).then((loaded) => {
      if (loaded && $('game-select').value === gameId) fillSeats(gameId);
    });
  }
}

// The chosen level's title on the closed drop-down too, where the pointer rests.
export function showSeatTitle(select) {
  select.title = select.selectedOptions[0]?.title ?? '';
}

function renderSeatBar(bar, player, state = S.state) {
  const { online } = S;
  const fields = positionFields(state.toString());
  const match = specOption('rounds') === 'match';
  bar.replaceChildren();
  bar.classList.toggle('to-move', !state.isTerminal && state.turn === player);
  const who = document.createElement('span');
  who.textContent = t('bar.who', sideName(player), seatLabel(player));
  const score = document.createElement('span');
  score.className = 'score';
  score.textContent = t(match ? 'bar.store' : 'bar.score', state.score(player));
  if (match && fields.reserve) {
    const reserve = document.createElement('span');
    reserve.className = 'fields';
    reserve.textContent = t('bar.reserve', fields.reserve.split(',')[player]);
    score.appendChild(reserve);
  }
  if (match) {
    // The holes the side holds this round: its own, less the dead ones (the library's flags).
    const holes = cellsOf(state).filter((cell) => cell.owner === player && !(cell.flags & CELL_DEAD)).length;
    const held = document.createElement('span');
    held.className = 'fields holes';
    held.textContent = t('bar.holes', holes);
    score.appendChild(held);
  }
  score.setAttribute('data-score', state.score(player));
  bar.append(who, score);
  if (online?.clock) {
    const clock = document.createElement('span');
    clock.className = 'clock';
    clock.id = `clock-${player}`;
    bar.append(clock);
    renderClock(player);
  }
}

export function gameName(id) {
  return t(`game.${id}`);
}

function statusText() {
  const { state, online, seats, phase } = S;
  const decision = lastDecision();
  const last = decision ? t('status.played', sideName(decision.player), decision.text) : '';
  if (state.isTerminal || online?.result || S.ended) return `${last}${t('status.over')}`;
  const who = sideName(state.turn);
  if (online) {
    if (online.waitingFor === 0 || online.waitingFor === 1) return t('status.waiting-join', sideName(online.waitingFor));
    if (state.isChance) return `${last}${t('status.server-throws', who)}`;
    if (online.seat === state.player) return `${last}${t('status.your-turn', who)}`;
    return `${last}${online.seat === null ? t('status.to-move', who) : t('status.waiting', who)}`;
  }
  const pause = phase === 'paused' ? t('status.paused') : '';
  if (state.isChance) return `${last}${t(phase === 'your-throw' ? 'status.your-throw' : 'status.throws', who)}${pause}`;
  return seats[state.player] === 'person' ? `${last}${t('status.to-move', who)}`
    : `${last}${t('status.to-move-seat', who, seatLabel(state.player))}${pause}`;
}

// The words of a past position of the replay: who played what there and who was to move.
function replayStatusText(state, log) {
  const decision = lastDecision(state, log);
  const last = decision ? t('status.played', sideName(decision.player), decision.text) : '';
  if (state.isTerminal) return `${last}${t('status.over')}`;
  return `${last}${t(state.isChance ? 'status.throws' : 'status.to-move', sideName(state.turn))}`;
}

function fieldsText(state = S.state) {
  const fields = positionFields(state.toString());
  const parts = [];
  if (fields.round) {
    parts.push(t('fields.round', fields.round, sideName(Number(fields.starter))));
    if (fields.dead && fields.dead !== '-') parts.push(t('fields.dead', fields.dead.split('+')));
  }
  if (fields.quiet !== undefined) {
    const limit = specOption('quiet');
    parts.push(limit === '0' ? t('fields.quiet-unlimited', fields.quiet) : t('fields.quiet', fields.quiet, limit));
  }
  return parts.join('; ');
}

export function sticksWhite(value) {
  // A throw is the number of white sides up, and 6 when none is (docs/tab.md).
  return value === 6 ? 0 : value;
}

function renderTabPanel(state = S.state, log = S.log) {
  const { phase } = S;
  const panel = $('tab-panel');
  panel.hidden = state.gameId !== 'tab';
  if (panel.hidden) return;
  const throws = positionFields(state.toString()).throws;
  const stored = !throws || throws === '-' ? [] : throws.split(',');
  // A position pasted or opened without its throws in the move list still holds them: the
  // sticks show the last one it stores.
  const thrown = state === S.state ? S.lastThrow : lastThrowIn(log);
  const lastThrow = thrown ?? (stored.length ? Number(stored.at(-1)) : null);
  if (phase !== 'throw') drawSticks($('sticks'), lastThrow === null ? null : sticksWhite(lastThrow));
  $('sticks').setAttribute('aria-label', lastThrow === null ? t('sticks.none') : t('sticks.last', lastThrow));
  $('throw').hidden = phase !== 'your-throw';
  $('throw').disabled = S.viewPly !== null;
  $('throws-text').textContent = state.isTerminal ? '' : t('sticks.to-spend', sideName(state.turn), stored);
  renderChoices();
}

export function renderChoices() {
  const { state, selectedCell } = S;
  const box = $('choices');
  box.replaceChildren();
  if (!personToDecide()) return;
  const legal = state.legalMoves();
  let options = [];
  if (selectedCell !== null) options = legal.filter((m) => m !== MOVE_PASS && originCell(m) === selectedCell);
  if (legal.includes(MOVE_PASS)) options.push(MOVE_PASS);
  for (const move of options) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'choice';
    const name = state.moveToString(move);
    button.textContent = move === MOVE_PASS ? t('choice.pass') : choiceLabel(name);
    button.setAttribute('data-move', name);
    button.setAttribute('aria-label', t('choice.play', name));
    button.addEventListener('click', () => playPerson(move));
    button.addEventListener('mouseenter', () => previewMove(move));
    button.addEventListener('focus', () => previewMove(move));
    button.addEventListener('mouseleave', () => previewMove(null));
    button.addEventListener('blur', () => previewMove(null));
    box.appendChild(button);
  }
}

function choiceLabel(name) {
  // e2+3 moves the whole unit; e2+3x2 moves 2 pieces of a king (docs/notation.md).
  const split = name.match(/^([a-z]+[0-9]+)\+([0-9]+)x([0-9]+)$/);
  if (split) return t('choice.split', split[2], split[3], name);
  const whole = name.match(/^([a-z]+[0-9]+)\+([0-9]+)$/);
  return whole ? t('choice.whole', whole[2], name) : name;
}

// Which cells a move would change: the engine plays it on a copy.
export function previewMove(move) {
  const cells = new Set();
  if (move !== null && move !== MOVE_PASS) {
    const scratch = S.state.clone();
    try {
      const before = boardSignature(scratch).cells;
      scratch.apply(move);
      boardSignature(scratch).cells.forEach((cell, index) => {
        if (cell !== before[index] && index !== originCell(move)) cells.add(index);
      });
    } finally {
      scratch.free();
    }
  }
  markPreview($('board'), cells);
}

function renderMoveList() {
  // Only the end of the list changes from one render to the next: a long Tab game has
  // hundreds of entries.
  const { log } = S;
  const list = $('move-list');
  const items = list.children;
  let same = 0;
  while (same < items.length && same < log.length && items[same].getAttribute('data-key') === log[same].key) same++;
  while (items.length > same) items[items.length - 1].remove();
  for (const entry of log.slice(same)) {
    const item = document.createElement('li');
    item.textContent = `${t(`side.short.${entry.player}`)} ${entry.text}`;
    item.setAttribute('data-move', entry.text);
    item.setAttribute('data-key', entry.key);
    // Each move is a button to the position after it.
    item.tabIndex = 0;
    item.setAttribute('role', 'button');
    list.appendChild(item);
  }
  list.querySelector('.current')?.classList.remove('current');
  const current = S.viewPly === null ? list.lastElementChild : list.children[S.viewPly - 1];
  current?.classList.add('current');
  if (S.viewPly === null) list.scrollTop = list.scrollHeight;
}

// Online, a seat may ask for a rematch once the match is over (and take one its opponent
// asked for); a watcher may follow one.
function renderRematch() {
  const { online } = S;
  const note = $('rematch-note');
  const button = $('rematch');
  if (!online) {
    note.textContent = '';
    button.textContent = t('banner.rematch');
    return;
  }
  const seat = online.seat !== null && !online.forged;
  const offered = Boolean(online.rematch) && !online.rematchAsked;
  button.hidden = seat ? false : !online.rematch;
  button.textContent = t(!seat ? 'banner.rematch-watch' : offered ? 'banner.rematch-accept' : 'banner.rematch');
  note.textContent = seat && offered ? t('online.rematch-offered') : '';
}

function renderBanner() {
  const { state, online } = S;
  const banner = $('banner');
  const result = online?.result ?? S.ended;
  const ended = result && !state.isTerminal ? result : null;
  // The banner is the live game's: a past position of the replay has only its own words.
  banner.hidden = (!state.isTerminal && !ended) || S.viewPly !== null;
  renderBannerText(state, online, banner, ended);
  if (!banner.hidden) renderRematch();
}

function renderBannerText(state, online, banner, ended) {
  if (ended?.by === 'no-first-move') {
    // Aborted: the first move did not come in time, and nobody wins.
    $('banner-title').textContent = t('banner.aborted');
    $('banner-reason').textContent = t('banner.no-first-move');
    banner.setAttribute('data-by', ended.by);
    $('rematch').hidden = true;
    return;
  }
  if (ended?.by === 'agreement') {
    $('banner-title').textContent = t('banner.draw-agreed');
    $('banner-reason').textContent = t('banner.agreed');
    banner.setAttribute('data-by', ended.by);
    $('rematch').hidden = false;
    return;
  }
  if (ended) {
    const winner = Number(ended.winner);
    $('banner-title').textContent = t('banner.wins', sideName(winner));
    $('banner-reason').textContent = t(ended.by === 'time' ? 'banner.time' : 'banner.resigned', sideName(1 - winner));
    banner.setAttribute('data-by', ended.by);
    $('rematch').hidden = Boolean(online);
    return;
  }
  banner.removeAttribute('data-by');
  banner.removeAttribute('data-reason');
  if (!state.isTerminal) return;
  const reason = endReasonName(state.endReason);
  banner.setAttribute('data-reason', reason);
  const [s0, s1] = state.scores;
  $('banner-title').textContent = state.winner === DRAW ? t('banner.draw', s0, s1)
    : t('banner.wins-score', sideName(state.winner), state.score(state.winner), state.score(1 - state.winner));
  $('banner-reason').textContent = describeEnding(reason);
  $('rematch').hidden = Boolean(online);
}

// Why the game ended is the library's end reason (state.endReason); the page only words it.
function describeEnding(reason) {
  const { state } = S;
  const decision = lastDecision();
  const loser = state.winner === DRAW ? null : 1 - state.winner;
  const side = (player) => sideName(player ?? 0);
  switch (reason) {
    case 'no-move': return decision ? t('end.no-move', sideName(1 - decision.player), decision.text) : t('end.loaded');
    case 'empty-row': return t('end.empty-row', side(decision ? 1 - decision.player : loser));
    case 'store-short': return t('end.store-short', side(loser), state.score(loser ?? 0));
    case 'all-captured': return t('end.no-pieces', side(loser));
    case 'all-across': return t('end.all-across');
    case 'blocked': return t('end.blocked');
    case 'quiet': return t('end.quiet', specOption('quiet'));
    case 'endless': return decision ? t('end.endless', sideName(decision.player), decision.text, specOption('laps')) : t('end.loaded');
    default: return t('end.loaded');
  }
}

// What the last decision did, in a line of words from its story (and, at the end of a round
// of a Walak-pussa match, who won it and the reserves the next round starts from).
function renderMoveStory(state = S.state, log = S.log) {
  let i = log.length - 1;
  while (i >= 0 && log[i].chance) i--;
  if (i < 0) {
    $('move-story').textContent = '';
    return;
  }
  const events = storyOf(state, i);
  let line = `${sideName(log[i].player)}: ${storyLine(state, log[i].text, events)}`;
  const fields = positionFields(state.toString());
  if (events.some((e) => e.kind === EVENT.ROUND_END) && fields.reserve) {
    line += `; ${t('story.reserves', ...fields.reserve.split(','))}`;
  }
  $('move-story').textContent = line;
}

// A correspondence allowance is days long: days and hours, or hours and minutes, above an hour
// (no seconds ticking for days); a live clock's time as chess clocks show it.
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 100)) / 10;
  if (total >= 86400) return t('clock.days', Math.floor(total / 86400), Math.floor((total % 86400) / 3600));
  if (total >= 3600) return `${Math.floor(total / 3600)}:${String(Math.floor((total % 3600) / 60)).padStart(2, '0')}:${String(Math.floor(total % 60)).padStart(2, '0')}`;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  return total < 10 ? `${seconds.toFixed(1)}` : `${minutes}:${String(Math.floor(seconds)).padStart(2, '0')}`;
}

export function clockLeft(player) {
  const c = S.online.clock;
  return c.left[player] - (c.running === player ? performance.now() - c.at : 0);
}

export function renderClock(player) {
  const node = document.getElementById(`clock-${player}`);
  if (!node || !S.online?.clock) return;
  const left = clockLeft(player);
  node.textContent = clockText(left);
  node.setAttribute('data-ms', String(Math.max(0, Math.round(left))));
  node.classList.toggle('running', S.online.clock.running === player);
  node.classList.toggle('low', S.online.clock.running === player && left < 10000);
}

// An open draw offer: its words for everyone, Accept and Decline for the other seat's page.
function renderDrawOffer() {
  const { online } = S;
  const box = $('draw-offered');
  const show = Boolean(online && online.drawBy !== null && !online.result);
  box.hidden = !show;
  if (!show) return;
  const mine = online.seat === online.drawBy;
  const answers = online.seat !== null && !mine;
  $('draw-offered-text').textContent = mine ? t('online.draw-yours') : t('online.draw-offer', sideName(online.drawBy));
  $('draw-accept').hidden = !answers;
  $('draw-decline').hidden = !answers;
}

function renderUndoOffer() {
  const { online } = S;
  const offer = $('undo-offer');
  const show = Boolean(online && online.undoBy !== null && !online.result);
  offer.hidden = !show;
  if (!show) return;
  const mine = online.seat !== null && online.undoBy !== online.seat;
  $('undo-offer-text').textContent = t('online.undo-offer', sideName(online.undoBy));
  $('undo-accept').hidden = !mine;
  $('undo-decline').hidden = !mine;
}

// In an online match New game and Load position would replace the match on this page only:
// they are off, and a note says how to leave the match. A watcher has no move to type or take
// back, but keeps Hint and Analysis, which open for everyone once the game is over.
function renderMatchLock() {
  const { online } = S;
  $('new-game-button').disabled = Boolean(online);
  $('record-file').disabled = Boolean(online);
  $('paste-form').querySelector('button[type="submit"]').disabled = Boolean(online);
  $('leave-note').hidden = !online;
  const watching = Boolean(online && online.seat === null);
  const form = $('move-form');
  for (const node of [form.querySelector('label'), $('move-input'), form.querySelector('button[type="submit"]'), $('undo')]) {
    node.hidden = watching;
  }
}

// The status, the line of words, the fields and the sticks: of the position on the board,
// which in the replay is a past one (its own plies of the move list).
function renderPositionWords(replay) {
  if (replay) {
    const log = S.log.slice(0, S.viewPly);
    $('status-text').textContent = replayStatusText(replay.shown, log);
    renderMoveStory(replay.shown, log);
    $('fields').textContent = fieldsText(replay.shown);
    renderTabPanel(replay.shown, log);
    return;
  }
  $('status-text').textContent = statusText();
  renderMoveStory();
  $('fields').textContent = fieldsText();
  renderTabPanel();
}

// Resign and, offline, a draw offer: a seat's page online, offline whenever a person plays.
// Two people at one screen agree a draw by the button; a bot answers an offer (controller.js).
function renderEndControls(past) {
  const { online, state, seats } = S;
  const over = state.isTerminal || Boolean(online?.result) || Boolean(S.ended);
  const people = seats.filter((seat) => seat === 'person').length;
  $('resign').hidden = online ? online.seat === null : people === 0;
  $('resign').disabled = past || over;
  const draw = $('draw-offer');
  if (online) {
    // A seat offers at any moment of the game (the server allows one offer until the other
    // seat has moved) and withdraws its own; an offer of the other seat is answered instead.
    draw.hidden = online.seat === null;
    const own = online.drawBy !== null && online.drawBy === online.seat;
    draw.textContent = t(own ? 'move.draw-withdraw' : 'move.draw-offer');
    draw.disabled = past || over || online.waitingFor !== null || (online.drawBy !== null && !own);
    return;
  }
  draw.hidden = people === 0;
  draw.textContent = t(people === 2 ? 'move.draw-agree' : 'move.draw-offer');
  draw.disabled = past || over || !personToDecide();
}

// The move list as a replay: the position after the chosen ply, read from the library on a
// copy, with the game going on underneath.
function renderReplay() {
  const { log, viewPly } = S;
  const bar = $('replay-bar');
  bar.hidden = viewPly === null;
  if (viewPly === null) return null;
  $('replay-text').textContent = t('replay.viewing', viewPly, log.length);
  const { shown, marks } = replayAt(viewPly);
  marks.flipped = true;
  return { shown, marks };
}

// The ply whose move the board's frame was last scrolled to (see render).
let scrolledTo = null;

// A wide board's frame follows the moves: each new one shown (played or replayed) is brought
// into view once, and the person may scroll away from it until the next.
function bringMoveIntoView() {
  const at = S.viewPly === null ? `live ${S.log.length}` : `replay ${S.viewPly}`;
  if (at === scrolledTo) return;
  scrolledTo = at;
  const marked = [...$('board').querySelectorAll('.cell.last, .cell.changed')];
  scrollCellsIntoView($('board-wrap'), marked, S.animation !== 'off');
}

// The rules in play, in the New game form's words: the header names the game, this line its
// options (the rule spec itself is the form's).
function renderRules(state) {
  const game = S.tg.games().find((g) => g.id === state.gameId);
  const items = game.options.map((option) => {
    const value = specOption(option.key, state.spec) ?? option.default;
    return `${optionWords(state.gameId, option.key)}: ${choiceWords(option.key, value)}`;
  });
  $('rules-line').textContent = items.length ? t('page.rules', items) : '';
}

// While a move plays out (animate.js), the board shows the position it was played from with
// nothing offered on it, and the status says which move is being played.
export function renderPlaying() {
  const { log } = S;
  const entry = log.at(-1);
  const { shown, marks } = replayAt(log.length - 1);
  marks.flipped = true;
  // A move playing out is not the replay: no analysis of the position it left is drawn.
  marks.ply = null;
  try {
    drawBoard($('board'), snapshot([0, 1].map(sideName), shown, marks), { activate: activateCell, hover: hoverCell });
  } finally {
    shown.free();
  }
  $('status-text').textContent = t('status.playing', sideName(entry.player), entry.text);
  renderChoices();
  $('legal-moves').replaceChildren();
  $('hint-button').disabled = true;
  $('hint').textContent = '';
}

export function render() {
  const { state, online, log, paused } = S;
  if (S.viewPly !== null && S.viewPly >= log.length) S.viewPly = null;
  const replay = renderReplay();
  const shown = replay ? replay.shown : state;
  try {
    drawBoard($('board'), replay ? snapshot([0, 1].map(sideName), shown, replay.marks)
      : snapshot([0, 1].map(sideName)), { activate: activateCell, hover: hoverCell });
    bringMoveIntoView();
    renderSeatBar($('seat-north'), S.flipped ? 0 : 1, shown);
    renderSeatBar($('seat-south'), S.flipped ? 1 : 0, shown);
    $('position').textContent = shown.toString();
    renderPositionWords(replay);
    renderAnalysisControls(shown);
  } finally {
    if (replay) shown.free();
  }
  $('board').setAttribute('aria-label', t('board.label', gameName(state.gameId), state.rows, state.cols));
  $('flip').setAttribute('aria-pressed', String(S.flipped));
  $('flip').hidden = Boolean(online);
  renderMoveList();
  renderBanner();
  $('tagline').textContent = gameName(state.gameId);
  const yourTurn = online && online.seat !== null && !online.result && !state.isTerminal && !S.ended
    && online.waitingFor !== 0 && online.waitingFor !== 1 && !state.isChance && state.player === online.seat;
  setLiveTurn(yourTurn ? gameName(state.gameId) : null);
  renderRules(state);
  const names = personToDecide() ? state.legalMoveNames() : [];
  $('legal-moves').replaceChildren(...names.map((name) => Object.assign(document.createElement('option'), { value: name })));
  // In the replay, nothing acts on the game as it stands until the person is back at it.
  const past = S.viewPly !== null;
  $('undo').disabled = past || log.length === 0 || Boolean(S.ended) || Boolean(online && (online.seat === null || online.result));
  $('move-form').querySelector('button[type="submit"]').disabled = past;
  $('move-input').disabled = past;
  renderEndControls(past);
  renderUndoOffer();
  renderDrawOffer();
  renderMatchLock();
  // The server has no pause: its clocks run and its throws are instant (docs/web.md).
  $('pause').hidden = Boolean(online);
  $('pause').textContent = t(paused ? 'move.resume' : 'move.pause');
  $('pause').setAttribute('aria-pressed', String(paused));
  document.body.setAttribute('data-ply', String(log.length));
}

// Hint and Analysis: off while an online match is played (session.js, engineClosed), and
// saying so; on for a person's turn and for every position of a finished game.
function renderAnalysisControls(shown) {
  const closed = engineClosed();
  $('analysis').setAttribute('aria-pressed', String(S.analysing && !closed));
  $('analysis').disabled = closed;
  $('hint-button').disabled = !analysisOpen() || shown.isTerminal || shown.isChance;
  $('analysis-closed').hidden = !closed;
}

// The catalogue names each option and choice; a game may name an option its own way (a Tab
// row has squares, not holes), and a number needs no words.
function optionWords(gameId, key) {
  if (has(`option.${gameId}.${key}`)) return t(`option.${gameId}.${key}`);
  return has(`option.${key}`) ? t(`option.${key}`) : key;
}

function choiceWords(key, choice) {
  return has(`option.${key}.${choice}`) ? t(`option.${key}.${choice}`) : choice;
}

// The option controls come from the library's catalogue: a list option is a drop-down of its
// choices, a range option a number field with its bounds.
export function buildOptions(gameId, spec) {
  const game = S.tg.games().find((g) => g.id === gameId);
  const given = Object.fromEntries((spec.split(':')[1] ?? '').split(',').filter(Boolean).map((p) => p.split('=')));
  const box = $('options');
  box.replaceChildren();
  for (const option of game.options) {
    const label = document.createElement('label');
    label.append(`${optionWords(gameId, option.key)} `);
    let control;
    if (option.choices) {
      control = document.createElement('select');
      for (const choice of option.choices) {
        control.appendChild(Object.assign(document.createElement('option'), { value: choice, textContent: choiceWords(option.key, choice) }));
      }
    } else {
      control = document.createElement('input');
      control.type = 'number';
      control.min = option.range.min;
      control.max = option.range.max;
      control.step = 1;
    }
    control.value = given[option.key] ?? option.default;
    control.id = `option-${option.key}`;
    control.setAttribute('data-key', option.key);
    control.addEventListener('change', composeSpec);
    control.addEventListener('input', composeSpec);
    label.appendChild(control);
    box.appendChild(label);
  }
}

export function composeSpec() {
  const gameId = $('game-select').value;
  const options = [...$('options').querySelectorAll('[data-key]')]
    .map((control) => `${control.getAttribute('data-key')}=${control.value}`);
  $('spec-input').value = options.length ? `${gameId}:${options.join(',')}` : gameId;
}

export function syncGameControls(gameId, spec) {
  $('game-select').value = gameId;
  buildOptions(gameId, spec);
  $('spec-input').value = spec;
  fillSeats(gameId);
  $('seat0').value = S.seats[0];
  $('seat1').value = S.seats[1];
  showSeatTitle($('seat0'));
  showSeatTitle($('seat1'));
}

export function fillSelects() {
  $('game-select').replaceChildren();
  for (const game of S.tg.games()) {
    $('game-select').appendChild(Object.assign(document.createElement('option'), { value: game.id, textContent: gameName(game.id) }));
  }
  fillSeats();
}

export async function copyPosition() {
  const text = S.state.toString();
  try {
    await navigator.clipboard.writeText(text);
    $('copy-position').textContent = t('position.copied');
  } catch {
    // No clipboard permission (an http page, a headless browser): select the text instead.
    const range = document.createRange();
    range.selectNodeContents($('position'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    $('copy-position').textContent = t('position.selected');
  }
  setTimeout(() => { $('copy-position').textContent = t('position.copy'); }, 1500);
}
