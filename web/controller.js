// The game controller: whose turn it is and what happens next (a person's click, a bot in the
// worker, the sticks thrown with the session's generator), the move list, undo, new games and
// pasted positions. Every move goes through the library's apply(); its errors are shown.
import { TGError, MOVE_PASS } from './traditional-games/traditional-games.js';
import { SearchWorker } from './traditional-games/traditional-games-search.js';
import { drawSticks } from './board.js';
import { t, say, showError } from './i18n.js';
import {
  S, $, fast, originCell, personToDecide, animationMs, ANALYSIS_SPEC, analysisOpen, shownPly, replayAt,
  engineClosed,
} from './session.js';
import {
  render, renderChoices, renderPlaying, previewMove, seatLabel, syncGameControls, sideName,
} from './panels.js';
import {
  sendMove, requestUndo, requestRematch, resign, askServerBot, offerOnlineDraw,
} from './online.js';
import { renderLearn } from './learn.js';
import { animateStory } from './animate.js';
import { exactAnalysis } from './egtb.js';
import { storyOf } from './story.js';
import { ANIMATION_SPEEDS } from './session.js';

const THROW_ANIMATION_MS = 500;
// Not an animation: time to follow two bots (and no motion), so the setting leaves it.
const BOT_VERSUS_BOT_PAUSE_MS = fast ? 0 : 400;

// The package's Worker helper: the bots and the analysis think there, and a search the game
// no longer needs (undo, a new game, a seat change) is stopped through its AbortSignal.
let searcher;
let pendingAnalysis = null;

export function setPhase(next) {
  S.phase = next;
  document.body.setAttribute('data-phase', next);
  $('thinking').hidden = next !== 'bot';
  if (next === 'bot') $('thinking-text').textContent = t('status.thinking', seatLabel(S.state.player));
}

export function record(move) {
  const { state } = S;
  const player = state.turn;
  const chance = state.isChance;
  const text = state.moveToString(move);
  state.apply(move);
  S.log.push({ player, text, chance, key: String(S.nextEntryKey++) });
  if (chance) S.lastThrow = Number(text.split(':')[1]);
}

// The last move plays out on the board from its story before anything else happens (the
// bot's reply waits for the person's move to finish); then the game goes on. With the
// animation off, at once.
export async function playOut() {
  const factor = ANIMATION_SPEEDS[S.animation];
  const index = S.log.length - 1;
  if (factor === 0 || index < 0 || S.log[index].chance || S.viewPly !== null) {
    advance();
    return;
  }
  const gen = S.generation;
  setPhase('animating');
  renderPlaying();
  await animateStory($('board'), storyOf(S.state, index), {
    factor,
    alive: () => gen === S.generation,
    bottomPlayer: S.flipped ? 1 : 0,
    isTab: S.state.gameId === 'tab',
  });
  if (gen === S.generation) advance();
}

// Drops a pending bot answer or throw: the game changed under it.
export function invalidate() {
  S.generation++;
  S.pendingBot?.abort.abort();
  S.pendingBot = null;
}

export function advance() {
  const { state, online, seats } = S;
  S.selectedCell = null;
  $('hint').textContent = '';
  showExactMoves(null);
  $('draw-answer').textContent = '';
  if (state.isTerminal || online?.result || S.ended) setPhase('over');
  else if (online && (online.waitingFor !== null || state.isChance || seats[state.player] === 'remote')) setPhase('remote');
  // A person throws their own sticks (the throw button); a bot's are thrown for it.
  else if (state.isChance) setPhase(seats[state.turn] === 'person' ? 'your-throw' : 'throw');
  else if (seats[state.player] === 'person') setPhase('person');
  else setPhase('bot');
  if (S.paused && (S.phase === 'throw' || S.phase === 'bot')) setPhase('paused');
  render();
  // Keyboard users keep their place: after a bot's move the board is theirs again.
  const focus = document.activeElement;
  if (S.phase === 'person' && (!focus || focus === document.body)) {
    document.querySelector('#board .cell.legal')?.focus({ preventScroll: true });
  } else if (S.phase === 'your-throw' && (!focus || focus === document.body)) {
    $('throw').focus({ preventScroll: true });
  }
  const gen = S.generation;
  if (S.analysing && analysisOpen() && S.analysis?.ply !== shownPly()) requestAnalysis();
  if (S.phase === 'throw') throwSticks(gen);
  else if (S.phase === 'bot') {
    const delay = seats.every((s) => s !== 'person') ? BOT_VERSUS_BOT_PAUSE_MS : 0;
    if (delay) setTimeout(() => { if (gen === S.generation) askBot(gen); }, delay);
    else askBot(gen);
  }
}

// The throw button: the person's own throw, drawn by the library like every other.
export function throwByPerson() {
  if (S.phase !== 'your-throw' || S.viewPly !== null) return;
  setPhase('throw');
  render();
  throwSticks(S.generation);
}

function throwSticks(gen) {
  // The library draws the throw (with this session's generator); the animation only shows it.
  const { state } = S;
  const history = state.history.length;
  const scratch = state.clone();
  let move;
  try {
    scratch.applyRandom(S.rng);
    move = scratch.history[history];
  } finally {
    scratch.free();
  }
  const finish = () => {
    if (gen !== S.generation) return;
    record(move);
    advance();
  };
  const duration = animationMs(THROW_ANIMATION_MS);
  if (duration === 0) {
    setTimeout(finish, 0);
    return;
  }
  const sticks = $('sticks');
  sticks.classList.add('sticks-rolling');
  const timer = setInterval(() => drawSticks(sticks, Math.floor(Math.random() * 5)), 70);
  setTimeout(() => {
    clearInterval(timer);
    sticks.classList.remove('sticks-rolling');
    finish();
  }, duration);
}

function askBot(gen) {
  if (S.online) {
    askServerBot(gen);
    return;
  }
  const abort = new AbortController();
  const pending = { gen, abort };
  S.pendingBot = pending;
  // User Timing marks bracket each search, for profilers and for the tests, which check that
  // the page's thread stays free in between.
  performance.mark('tg-bot-request');
  // The session's generator advances in the worker's answer only: a stopped search leaves it.
  searcher.choose(S.state, S.seats[S.state.player], S.rng, { signal: abort.signal }).then((move) => {
    performance.mark('tg-bot-answer');
    if (S.pendingBot !== pending || pending.gen !== S.generation) return;
    S.pendingBot = null;
    record(move);
    playOut();
  }, (error) => {
    if (error?.name === 'AbortError' || S.pendingBot !== pending) return;
    S.pendingBot = null;
    setPhase('error');
    $('status-text').textContent = t('status.bot-failed', error?.message ?? String(error));
  });
}

// The engine's values of the shown position's legal moves (a person's turn, or any position of
// a finished game: session.js, analysisOpen), asked of the worker (the page stays live); a late
// answer for another position is dropped, and a newer request stops it.
export function requestAnalysis() {
  if (!analysisOpen() || !S.tg) return;
  const ply = shownPly();
  const shown = ply === S.log.length ? S.state.clone() : replayAt(ply).shown;
  if (shown.isTerminal || shown.isChance) {
    shown.free();
    return;
  }
  pendingAnalysis?.abort.abort();
  const pending = { ply, gen: S.generation, abort: new AbortController() };
  pendingAnalysis = pending;
  $('hint').textContent = t('analysis.thinking');
  showExactMoves(null);
  // A position an endgame database covers is valued by it (egtb.js); any other by the worker.
  const asked = exactAnalysis(shown, ANALYSIS_SPEC).then((exact) => exact ??
    searcher.analyse(shown, ANALYSIS_SPEC, 0, { signal: pending.abort.signal }));
  asked.finally(() => shown.free()).catch(() => {});
  asked.then((analysis) => {
    if (pendingAnalysis !== pending) return;
    pendingAnalysis = null;
    if (pending.gen !== S.generation || pending.ply !== shownPly() || !analysisOpen()) return;
    S.analysis = { ply: pending.ply, moves: analysis.map(({ move, name, value, proven, exact }) => ({ move, name, value, proven, exact: exact ?? null })) };
    render();
    const best = S.analysis.moves[0];
    if (best?.exact) {
      $('hint').textContent = t('analysis.exact-best', best.name, exactText(best.exact));
      showExactMoves(S.analysis.moves);
    } else {
      $('hint').textContent = best ? t('analysis.best', best.name, best.value, best.proven) : '';
    }
  }, (error) => {
    if (error?.name === 'AbortError' || pendingAnalysis !== pending) return;
    pendingAnalysis = null;
    $('hint').textContent = t('status.bot-failed', error?.message ?? String(error));
  });
}

// "win by 4, exact", in the page's language, for a database's value of a move.
function exactText(exact) {
  return t('analysis.exact', exact.outcome, exact.endless, Math.abs(exact.finalMargin));
}

// Every move's exact value under the hint (null: none shown).
function showExactMoves(moves) {
  const list = $('exact-moves');
  list.replaceChildren(...(moves ?? []).map(({ name, exact }) =>
    Object.assign(document.createElement('li'), { textContent: t('analysis.exact-move', name, exactText(exact)) })));
  list.hidden = !moves;
}

export function toggleAnalysis() {
  if (engineClosed()) return;
  S.analysing = !S.analysing;
  if (!S.analysing) {
    S.analysis = null;
    showExactMoves(null);
  }
  render();
  if (S.analysing) requestAnalysis();
}

export function startWorker() {
  searcher = new SearchWorker();
}

export function playPerson(move) {
  if (!personToDecide()) return false;
  const { state } = S;
  if (S.online) {
    // The library says the move is legal here; the server, holding the same library, decides.
    if (!state.legalMoves().includes(move)) {
      const scratch = state.clone();
      try {
        scratch.apply(move);
      } catch (error) {
        showMoveError(error);
      } finally {
        scratch.free();
      }
      return false;
    }
    $('move-error').textContent = '';
    sendMove(move);
    return true;
  }
  try {
    record(move);
  } catch (error) {
    showMoveError(error);
    return false;
  }
  $('move-error').textContent = '';
  playOut();
  return true;
}

export function showMoveError(error) {
  if (!(error instanceof TGError)) throw error;
  showError($('move-error'), error, 'move');
}

const gameIds = () => S.tg.games().map((g) => g.id);

function clearError(id) {
  $(id).textContent = '';
  delete $(id).dataset.status;
}

const movesFrom = (cell) => S.state.legalMoves().filter((m) => m !== MOVE_PASS && originCell(m) === cell);

export function activateCell(cell) {
  if (!personToDecide()) return;
  const moves = movesFrom(cell);
  if (moves.length === 0) return;
  if (moves.length === 1) {
    playPerson(moves[0]);
    return;
  }
  // Tab: one piece, several throws to spend (or a king to split): the person picks.
  S.selectedCell = cell;
  for (const node of $('board').querySelectorAll('[data-cell]')) {
    node.classList.toggle('selected', Number(node.getAttribute('data-cell')) === cell);
  }
  renderChoices();
  const { state } = S;
  $('hint').textContent = t('hint.choose', state.cellName(Math.floor(cell / state.cols), cell % state.cols));
  $('choices').querySelector('button')?.focus({ preventScroll: true });
}

export function hoverCell(cell) {
  if (cell === null || !personToDecide()) {
    if (S.selectedCell === null) {
      $('hint').textContent = '';
      previewMove(null);
    }
    return;
  }
  const moves = movesFrom(cell);
  $('hint').textContent = t('hint.legal', moves.map((m) => S.state.moveToString(m)));
  if (S.selectedCell === null && S.state.gameId === 'tab' && moves.length === 1) previewMove(moves[0]);
}

export function cancelChoice() {
  if (S.selectedCell === null) return;
  S.selectedCell = null;
  advance();
}

export function onMoveTyped(event) {
  event.preventDefault();
  const input = $('move-input');
  const text = input.value.trim();
  if (!personToDecide()) {
    const key = S.state.isTerminal ? 'move.over' : 'move.not-your-turn';
    say($('move-error'), () => t(key));
    return;
  }
  let move;
  try {
    move = S.state.moveFromString(text);
  } catch (error) {
    showMoveError(error);
    return;
  }
  // An illegal move is refused by the library itself, with its own text, and changes nothing.
  if (playPerson(move)) input.value = '';
}

// The move list of a state that comes with its history (an opened record): who made each
// move and its notation, read by replaying the history on a copy taken back to the start.
function logOf(state) {
  const scratch = state.clone();
  const moves = state.history;
  try {
    for (let i = 0; i < moves.length; i++) scratch.undo();
    return moves.map((move) => {
      const entry = { player: scratch.turn, text: scratch.moveToString(move), chance: scratch.isChance, key: String(S.nextEntryKey++) };
      scratch.apply(move);
      return entry;
    });
  } finally {
    scratch.free();
  }
}

export function replaceState(next) {
  invalidate();
  S.state?.free();
  S.state = next;
  S.log = logOf(next);
  S.lastThrow = lastThrowIn(S.log);
  S.viewPly = null;
  S.ended = null;
  clearError('move-error');
  S.flipped = S.online ? S.online.seat === 1 : S.flipped;
  syncGameControls(next.gameId, next.spec);
  renderLearn();
  advance();
}

export function newGame(event) {
  event?.preventDefault();
  // A page in an online match keeps it: the person leaves the match first (panels.js says so).
  if (S.online) return;
  let next;
  try {
    next = new S.tg.State($('spec-input').value.trim());
  } catch (error) {
    if (!(error instanceof TGError)) throw error;
    showError($('spec-error'), error, 'spec', gameIds());
    return;
  }
  clearError('spec-error');
  S.seats = [$('seat0').value, $('seat1').value];
  replaceState(next);
  showBoard();
}

// A game started from the side's forms, which on a phone are below the board: the board is
// brought into view (the page stayed where the form was). At once, not smoothly: the next
// tap is on the board, and must not land where a cell was a moment before.
function showBoard() {
  const top = $('seat-north').getBoundingClientRect().top;
  if (top >= 0 && $('board-wrap').getBoundingClientRect().bottom <= innerHeight) return;
  $('play').scrollIntoView({ block: 'start' });
}

export function lastThrowIn(log) {
  const throws = log.filter((entry) => entry.chance);
  return throws.length ? Number(throws.at(-1).text.split(':')[1]) : null;
}

export function undo() {
  if (S.online) {
    requestUndo();
    return;
  }
  const { state, log, seats } = S;
  if (log.length === 0 || S.ended) return;
  invalidate();
  const anyPerson = seats.includes('person');
  do {
    state.undo();
    log.pop();
  } while (log.length > 0 && (state.isChance || (anyPerson && seats[state.player] !== 'person')));
  S.lastThrow = lastThrowIn(log);
  $('move-error').textContent = '';
  advance();
}

export function loadPosition(event) {
  event.preventDefault();
  if (S.online) {
    say($('paste-error'), () => t('paste.online'));
    return;
  }
  const text = $('paste-input').value.trim();
  let next;
  try {
    next = S.tg.State.fromString(text.split(' ')[0], text);
  } catch (error) {
    if (!(error instanceof TGError)) throw error;
    showError($('paste-error'), error, 'position', gameIds());
    return;
  }
  clearError('paste-error');
  replaceState(next);
  showBoard();
}

export function onSeatChange() {
  S.seats = [$('seat0').value, $('seat1').value];
  invalidate();
  if (!S.state.isTerminal) advance();
  else render();
}

// The replay: the board shows the position after ply k (null: the game as it stands).
export function viewPly(k) {
  S.viewPly = k === null || k >= S.log.length ? null : Math.max(0, k);
  render();
  // The analysis mode follows the position shown: a person's turn back at the game, or any
  // position of a finished game.
  if (S.analysing && analysisOpen() && S.analysis?.ply !== shownPly()) requestAnalysis();
  else if (pendingAnalysis === null) {
    $('hint').textContent = '';
    showExactMoves(null);
  }
}

export function stepView(delta) {
  const current = S.viewPly ?? S.log.length;
  viewPly(current + delta);
}

// A game record (.tgr, docs/records.md) of the game so far, written by the library.
export function recordText() {
  return S.state.toRecord({ Site: location.host || 'web board', South: seatLabel(0), North: seatLabel(1) });
}

export async function openRecord(file) {
  openRecordText(await file.text());
}

// A record's game on the board (not in an online match): true if the library read it. With
// seats, those play it on (a stored match replayed: two people, so no engine moves on from a
// resigned game's last position).
export function openRecordText(text, seats = null) {
  if (S.online) return false;
  let next;
  try {
    next = S.tg.State.fromRecord(text);
  } catch (error) {
    if (!(error instanceof TGError)) throw error;
    showError($('record-error'), error, 'record', gameIds());
    return false;
  }
  clearError('record-error');
  if (seats) S.seats = [...seats];
  replaceState(next);
  showBoard();
  return true;
}

// The same rules again, the seats swapped.
export function rematch() {
  if (S.online) {
    requestRematch();
    return;
  }
  S.seats = [S.seats[1], S.seats[0]];
  // The person's own side at the bottom, as at the start: with one person, it has moved.
  const people = [0, 1].filter((player) => S.seats[player] === 'person');
  if (people.length === 1) S.flipped = people[0] === 1;
  replaceState(new S.tg.State(S.state.spec));
}

export function toggleFlip() {
  S.flipped = !S.flipped;
  render();
}

export function togglePause() {
  S.paused = !S.paused;
  invalidate();
  advance();
}

// Resignation: online the server's; offline the person's (of two at one screen, the side to
// move), which ends the game on the page. The library's state knows no resignation.
export function resignGame() {
  if (S.online) {
    resign();
    return;
  }
  const { state, seats } = S;
  if (state.isTerminal || S.ended || S.viewPly !== null) return;
  const people = [0, 1].filter((player) => seats[player] === 'person');
  if (people.length === 0 || !(fast || window.confirm(t('move.confirm-resign')))) return;
  const loser = people.length === 1 ? people[0] : state.turn;
  endGame({ winner: String(1 - loser), by: 'resignation' });
}

function endGame(result) {
  invalidate();
  pendingAnalysis?.abort.abort();
  pendingAnalysis = null;
  S.ended = result;
  advance();
}

// A draw offer: online the server's (offer-draw, or withdraw-draw of this seat's own offer);
// offline on a person's turn. Two people at one screen agree it by the button.
// A bot accepts when the engine says its own side is not ahead: the value of the position
// for the bot, from the same fixed-depth analysis as the hint (the page computes no value).
export async function offerDraw() {
  if (S.online) {
    offerOnlineDraw();
    return;
  }
  if (!personToDecide()) return;
  const { state, seats } = S;
  const answer = $('draw-answer');
  if (seats.every((seat) => seat === 'person')) {
    endGame({ winner: 'draw', by: 'agreement' });
    return;
  }
  const bot = 1 - state.player;
  const gen = S.generation;
  const ply = S.log.length;
  answer.textContent = t('draw.considering', sideName(bot));
  let analysis;
  try {
    analysis = await searcher.analyse(state, ANALYSIS_SPEC, 0);
  } catch (error) {
    answer.textContent = t('status.bot-failed', error?.message ?? String(error));
    return;
  }
  if (gen !== S.generation || ply !== S.log.length || S.ended) return;
  // The best move's value is the mover's (the person's); the bot's is its opposite.
  const value = analysis.length ? -analysis[0].value : 0;
  if (value <= 0) {
    endGame({ winner: 'draw', by: 'agreement' });
    answer.textContent = t('draw.accepted', sideName(bot));
  } else {
    answer.textContent = t('draw.declined', sideName(bot), value);
  }
}
