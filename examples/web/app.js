// The web board: one game at a time, held in one tg.State of the library. Every rule, legal
// move, score and piece of notation is asked of the library; this file keeps the seats, the
// move list and the timing, and turns the engine's answers into a page.
import {
  load, Rng, TGError, DRAW, MOVE_PASS, CELL_LOCKED, CELL_DEAD,
} from './traditional-games/traditional-games.js';
import { drawBoard, drawSticks, markPreview } from './board.js';

const params = new URLSearchParams(location.search);
// ?speed=fast: no pauses or animations, for automated runs. ?seed=N: a reproducible session.
const fast = params.get('speed') === 'fast';
const THROW_ANIMATION_MS = fast ? 0 : 500;
const BOT_VERSUS_BOT_PAUSE_MS = fast ? 0 : 400;

const SEATS = [
  { value: 'person', label: 'Person' },
  { value: 'random', label: 'Bot: random' },
  { value: 'greedy', label: 'Bot: greedy' },
  { value: 'mcts:iterations=200', label: 'Bot: MCTS, quick (200 iterations)' },
  { value: 'mcts:iterations=1000', label: 'Bot: MCTS, club (1,000 iterations)' },
  { value: 'mcts:iterations=5000', label: 'Bot: MCTS, strong (5,000 iterations)' },
  { value: 'mcts:iterations=20000', label: 'Bot: MCTS, master (20,000 iterations)' },
];
const SEAT_NAMES = ['South (player 0)', 'North (player 1)'];

const $ = (id) => document.getElementById(id);

function randomSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (BigInt(words[0]) << 32n) | BigInt(words[1]);
}

let tg;
let state;
let rng;
let seats = ['person', 'mcts:iterations=1000'];
// One entry per move in state.history: who made it, its notation, and whether it was a throw.
let log = [];
// Bumped whenever the game changes under a pending bot answer or throw animation (new game,
// undo, paste, a seat changed), so that the late answer is dropped.
let generation = 0;
let phase = 'loading';
// A paused page lets no bot move and throws no sticks: to follow two bots, or to undo.
let paused = false;
let selectedCell = null;
let lastThrow = null;
let worker;
let pendingBot = null;
let nextRequestId = 1;
let nextEntryKey = 1;

// -- What the engine says about the current position -------------------------------------

// The cell a decision starts from. Mancala moves are the index of the hole emptied; a Tab
// decision keeps its cell in the low byte (docs/tab.md, "Moves and position strings").
function originCell(move) {
  return state.gameId === 'tab' ? move & 0xff : move;
}

function positionFields(text = state.toString()) {
  // SPEC BOARD TO_MOVE SCORES FIELD=VALUE...
  return Object.fromEntries(text.split(' ').slice(4).map((field) => field.split('=')));
}

function specOption(key) {
  const options = state.spec.split(':')[1] ?? '';
  const pair = options.split(',').find((p) => p.startsWith(`${key}=`));
  return pair ? pair.slice(key.length + 1) : null;
}

function boardSignature(s) {
  const cells = [];
  for (let row = 0; row < s.rows; row++) {
    for (let col = 0; col < s.cols; col++) cells.push(`${s.count(row, col)}/${s.owner(row, col)}`);
  }
  return { cells, scores: s.scores.join(',') };
}

// The last decision (throws skipped): where it started, which cells it changed, and whether
// it left the board and scores exactly as they were (the mark of an endless move).
function lastDecision() {
  let i = log.length - 1;
  while (i >= 0 && log[i].chance) i--;
  if (i < 0) return null;
  const history = state.history;
  const scratch = state.clone();
  try {
    for (let k = history.length - 1; k > i; k--) scratch.undo();
    const after = boardSignature(scratch);
    scratch.undo();
    const before = boardSignature(scratch);
    const changed = new Set();
    after.cells.forEach((cell, index) => { if (cell !== before.cells[index]) changed.add(index); });
    const unchanged = changed.size === 0 && after.scores === before.scores;
    return { ...log[i], origin: originCell(history[i]), changed, unchanged };
  } finally {
    scratch.free();
  }
}

function personToDecide() {
  return phase === 'person';
}

function snapshot() {
  const cells = [];
  for (let row = 0; row < state.rows; row++) {
    for (let col = 0; col < state.cols; col++) {
      cells.push({
        index: row * state.cols + col, row, col,
        name: state.cellName(row, col),
        count: state.count(row, col),
        owner: state.owner(row, col),
        flags: state.flags(row, col),
      });
    }
  }
  const legalByCell = new Map();
  if (personToDecide()) {
    for (const move of state.legalMoves()) {
      if (move === MOVE_PASS) continue;
      const cell = originCell(move);
      if (!legalByCell.has(cell)) legalByCell.set(cell, []);
      legalByCell.get(cell).push({ move, name: state.moveToString(move) });
    }
  }
  const decision = lastDecision();
  return {
    gameId: state.gameId, rows: state.rows, cols: state.cols,
    cell: (row, col) => cells[row * state.cols + col],
    legalByCell,
    lastCells: new Set(decision ? [decision.origin] : []),
    changedCells: decision ? decision.changed : new Set(),
    selectedCell,
    previewCells: new Set(),
    seatNames: SEAT_NAMES,
    CELL_LOCKED, CELL_DEAD,
  };
}

// -- Drawing -------------------------------------------------------------------------------

function seatLabel(player) {
  if (online) {
    const who = online.seat === player ? 'you' : online.seat === null ? 'player' : 'opponent';
    return seats[player] !== 'person' && seats[player] !== 'remote' ? `${who} (${seats[player]})` : who;
  }
  return SEATS.find((s) => s.value === seats[player])?.label ?? seats[player];
}

function renderSeatBar(bar, player) {
  const fields = positionFields();
  const match = specOption('rounds') === 'match';
  bar.replaceChildren();
  bar.classList.toggle('to-move', !state.isTerminal && state.turn === player);
  const who = document.createElement('span');
  who.textContent = `${SEAT_NAMES[player]} · ${seatLabel(player)}`;
  const score = document.createElement('span');
  score.className = 'score';
  score.textContent = `${match ? 'Store' : 'Score'} ${state.score(player)}`;
  if (match && fields.reserve) {
    const reserve = document.createElement('span');
    reserve.className = 'fields';
    reserve.textContent = ` (reserve ${fields.reserve.split(',')[player]})`;
    score.appendChild(reserve);
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

function gameName(id) {
  return tg.games().find((g) => g.id === id)?.name ?? id;
}

function statusText() {
  const decision = lastDecision();
  const last = decision ? `${SEAT_NAMES[decision.player]} played ${decision.text}. ` : '';
  if (state.isTerminal || online?.result) return `${last}Game over.`;
  if (online) {
    const who = SEAT_NAMES[state.turn];
    if (state.isChance) return `${last}The server throws the sticks for ${who}.`;
    if (online.seat === state.player) return `${last}${who} to move: your turn.`;
    return `${last}${who} to move${online.seat === null ? '' : ': waiting for your opponent'}.`;
  }
  const who = SEAT_NAMES[state.turn];
  const pause = phase === 'paused' ? ' Paused.' : '';
  if (state.isChance) return `${last}${who} throws the sticks.${pause}`;
  return seats[state.player] === 'person' ? `${last}${who} to move.`
    : `${last}${who} to move: ${seatLabel(state.player)}.${pause}`;
}

function fieldsText() {
  const fields = positionFields();
  const parts = [];
  if (fields.round) {
    parts.push(`Round ${fields.round}, started by ${SEAT_NAMES[Number(fields.starter)]}`);
    if (fields.dead && fields.dead !== '-') parts.push(`dead holes ${fields.dead.split('+').join(', ')}`);
  }
  if (fields.quiet !== undefined) {
    const limit = specOption('quiet');
    parts.push(limit === '0' ? `moves without capture: ${fields.quiet} (no limit)`
      : `moves without capture: ${fields.quiet} of ${limit}`);
  }
  return parts.join('; ');
}

function sticksWhite(value) {
  // A throw is the number of white sides up, and 6 when none is (docs/tab.md).
  return value === 6 ? 0 : value;
}

function renderTabPanel() {
  const panel = $('tab-panel');
  panel.hidden = state.gameId !== 'tab';
  if (panel.hidden) return;
  if (phase !== 'throw') drawSticks($('sticks'), lastThrow === null ? null : sticksWhite(lastThrow));
  $('sticks').setAttribute('aria-label', lastThrow === null ? 'The sticks: not thrown yet'
    : `The sticks: last throw ${lastThrow}`);
  const throws = positionFields().throws;
  const stored = !throws || throws === '-' ? 'none' : throws.split(',').join(', ');
  $('throws-text').textContent = state.isTerminal ? ''
    : `${SEAT_NAMES[state.turn]}: throws to spend: ${stored}`;
  renderChoices();
}

function renderChoices() {
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
    button.textContent = move === MOVE_PASS ? 'Pass' : choiceLabel(name);
    button.setAttribute('data-move', name);
    button.setAttribute('aria-label', `Play ${name}`);
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
  if (split) return `+${split[2]}, ${split[3]} of the king (${name})`;
  const whole = name.match(/^([a-z]+[0-9]+)\+([0-9]+)$/);
  return whole ? `+${whole[2]} (${name})` : name;
}

// Which cells a move would change: the engine plays it on a copy.
function previewMove(move) {
  const cells = new Set();
  if (move !== null && move !== MOVE_PASS) {
    const scratch = state.clone();
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
  const list = $('move-list');
  const items = list.children;
  let same = 0;
  while (same < items.length && same < log.length && items[same].getAttribute('data-key') === log[same].key) same++;
  while (items.length > same) items[items.length - 1].remove();
  for (const entry of log.slice(same)) {
    const item = document.createElement('li');
    item.textContent = `${entry.player === 0 ? 'S' : 'N'} ${entry.text}`;
    item.setAttribute('data-move', entry.text);
    item.setAttribute('data-key', entry.key);
    list.appendChild(item);
  }
  list.querySelector('.current')?.classList.remove('current');
  list.lastElementChild?.classList.add('current');
  list.scrollTop = list.scrollHeight;
}

function renderBanner() {
  const banner = $('banner');
  const ended = online?.result && !state.isTerminal ? online.result : null;
  banner.hidden = !state.isTerminal && !ended;
  if (ended) {
    const winner = Number(ended.winner);
    $('banner-title').textContent = `${SEAT_NAMES[winner]} wins.`;
    $('banner-reason').textContent = ended.by === 'time'
      ? `${SEAT_NAMES[1 - winner]} ran out of time.`
      : `${SEAT_NAMES[1 - winner]} resigned.`;
    banner.setAttribute('data-by', ended.by);
    return;
  }
  banner.removeAttribute('data-by');
  if (!state.isTerminal) return;
  const [s0, s1] = state.scores;
  $('banner-title').textContent = state.winner === DRAW
    ? `Draw, ${s0} to ${s1}.`
    : `${SEAT_NAMES[state.winner]} wins, ${state.score(state.winner)} to ${state.score(1 - state.winner)}.`;
  $('banner-reason').textContent = describeEnding();
}

function pieceCount(player) {
  let pieces = 0;
  for (let row = 0; row < state.rows; row++) {
    for (let col = 0; col < state.cols; col++) if (state.owner(row, col) === player) pieces += state.count(row, col);
  }
  return pieces;
}

// The library reports who won, not why; the reason is read off what it does report: a last
// move that left everything as it was (only an endless move does), the quiet count at its
// limit, a side without pieces, a store too small for another round.
function describeEnding() {
  const decision = lastDecision();
  const loser = state.winner === DRAW ? null : 1 - state.winner;
  if (state.gameId === 'tab') {
    for (const player of [0, 1]) {
      if (pieceCount(player) === 0) return `${SEAT_NAMES[player]} has no pieces left.`;
    }
    return 'Every piece has crossed into the opponent\'s row, so no capture can happen any more. The higher score wins.';
  }
  if (decision && decision.unchanged) {
    return `${SEAT_NAMES[decision.player]}'s move ${decision.text} was an endless sowing (it did not end within the lap limit of ${specOption('laps') === '0' ? 'none: it would never end' : specOption('laps')}), and an endless move loses.`;
  }
  const fields = positionFields();
  const limit = specOption('quiet');
  if (limit !== null && limit !== '0' && fields.quiet === limit) {
    return `${limit} moves in a row without a capture: the quiet limit ended the game.`;
  }
  if (specOption('rounds') === 'match' && loser !== null) {
    return `${SEAT_NAMES[loser]} has ${state.score(loser)} counters in store, too few to fill a hole for another round: the match is over.`;
  }
  if (decision) return `${SEAT_NAMES[1 - decision.player]} had no move left after ${decision.text}.`;
  return 'The position was loaded as a finished game.';
}

function render() {
  const view = snapshot();
  drawBoard($('board'), view, { activate: activateCell, hover: hoverCell });
  $('board').setAttribute('aria-label', `${gameName(state.gameId)} board, ${state.rows} rows of ${state.cols}`);
  renderSeatBar($('seat-north'), 1);
  renderSeatBar($('seat-south'), 0);
  $('status-text').textContent = statusText();
  $('fields').textContent = fieldsText();
  renderTabPanel();
  renderMoveList();
  renderBanner();
  $('position').textContent = state.toString();
  $('tagline').textContent = `${gameName(state.gameId)} · ${state.spec}`;
  const names = personToDecide() ? state.legalMoveNames() : [];
  $('legal-moves').replaceChildren(...names.map((name) => Object.assign(document.createElement('option'), { value: name })));
  $('undo').disabled = log.length === 0 || Boolean(online && (online.seat === null || online.result));
  $('resign').hidden = !online || online.seat === null;
  $('resign').disabled = Boolean(online && (online.result || state.isTerminal));
  renderUndoOffer();
  $('pause').textContent = paused ? 'Resume' : 'Pause';
  $('pause').setAttribute('aria-pressed', String(paused));
  document.body.setAttribute('data-ply', String(log.length));
}

function setPhase(next) {
  phase = next;
  document.body.setAttribute('data-phase', next);
  $('thinking').hidden = next !== 'bot';
  if (next === 'bot') $('thinking-text').textContent = `${seatLabel(state.player)} is thinking…`;
}

// -- Play ----------------------------------------------------------------------------------

function record(move) {
  const player = state.turn;
  const chance = state.isChance;
  const text = state.moveToString(move);
  state.apply(move);
  log.push({ player, text, chance, key: String(nextEntryKey++) });
  if (chance) lastThrow = Number(text.split(':')[1]);
}

function advance() {
  selectedCell = null;
  $('hint').textContent = '';
  if (state.isTerminal || online?.result) {
    setPhase('over');
  } else if (online && (state.isChance || seats[state.player] === 'remote')) {
    setPhase('remote');
  } else if (state.isChance) {
    setPhase('throw');
  } else if (seats[state.player] === 'person') {
    setPhase('person');
  } else {
    setPhase('bot');
  }
  if (paused && (phase === 'throw' || phase === 'bot')) setPhase('paused');
  render();
  // Keyboard users keep their place: after a bot's move the board is theirs again.
  const focus = document.activeElement;
  if (phase === 'person' && (!focus || focus === document.body)) {
    document.querySelector('#board .cell[tabindex]')?.focus({ preventScroll: true });
  }
  const gen = generation;
  if (phase === 'throw') throwSticks(gen);
  else if (phase === 'bot') {
    const delay = seats.every((s) => s !== 'person') ? BOT_VERSUS_BOT_PAUSE_MS : 0;
    if (delay) setTimeout(() => { if (gen === generation) askBot(gen); }, delay);
    else askBot(gen);
  }
}

function throwSticks(gen) {
  // The library draws the throw (with this session's generator); the animation only shows it.
  const history = state.history.length;
  const scratch = state.clone();
  let move;
  try {
    scratch.applyRandom(rng);
    move = scratch.history[history];
  } finally {
    scratch.free();
  }
  const finish = () => {
    if (gen !== generation) return;
    record(move);
    advance();
  };
  if (THROW_ANIMATION_MS === 0) {
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
  }, THROW_ANIMATION_MS);
}

function askBot(gen) {
  const id = nextRequestId++;
  pendingBot = { id, gen };
  // User Timing marks bracket each search, for profilers and for the tests, which check that
  // the page's thread stays free in between.
  performance.mark('tg-bot-request');
  worker.postMessage({
    id, spec: state.spec, position: state.toString(), bot: seats[state.player], rng: rng.state.toString(),
  });
}

function onBotAnswer(event) {
  performance.mark('tg-bot-answer');
  const { id, move, rng: rngState, error } = event.data;
  if (!pendingBot || pendingBot.id !== id || pendingBot.gen !== generation) return;
  pendingBot = null;
  if (error) {
    setPhase('error');
    $('status-text').textContent = `The bot failed: ${error}`;
    return;
  }
  rng.state = BigInt(rngState);
  if (online) {
    sendMove(move);
    return;
  }
  record(move);
  advance();
}

function playPerson(move) {
  if (!personToDecide()) return false;
  if (online) {
    // The library says the move is legal here; the server, holding the same library, decides.
    if (!state.legalMoves().includes(move)) {
      try {
        state.clone().apply(move);
      } catch (error) {
        showMoveError(error);
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
  advance();
  return true;
}

function showMoveError(error) {
  if (!(error instanceof TGError)) throw error;
  $('move-error').textContent = error.message;
}

function activateCell(cell) {
  if (!personToDecide()) return;
  const moves = state.legalMoves().filter((m) => m !== MOVE_PASS && originCell(m) === cell);
  if (moves.length === 0) return;
  if (moves.length === 1) {
    playPerson(moves[0]);
    return;
  }
  // Tab: one piece, several throws to spend (or a king to split): the person picks.
  selectedCell = cell;
  for (const node of $('board').querySelectorAll('[data-cell]')) {
    node.classList.toggle('selected', Number(node.getAttribute('data-cell')) === cell);
  }
  renderChoices();
  $('hint').textContent = `${state.cellName(Math.floor(cell / state.cols), cell % state.cols)}: choose the throw to spend.`;
  $('choices').querySelector('button')?.focus({ preventScroll: true });
}

function hoverCell(cell) {
  if (cell === null || !personToDecide()) {
    if (selectedCell === null) $('hint').textContent = '';
    if (selectedCell === null) previewMove(null);
    return;
  }
  const names = state.legalMoves().filter((m) => m !== MOVE_PASS && originCell(m) === cell)
    .map((m) => state.moveToString(m));
  $('hint').textContent = `Legal: ${names.join(', ')}`;
  const moves = state.legalMoves().filter((m) => m !== MOVE_PASS && originCell(m) === cell);
  if (selectedCell === null && state.gameId === 'tab' && moves.length === 1) previewMove(moves[0]);
}

function onMoveTyped(event) {
  event.preventDefault();
  const input = $('move-input');
  const text = input.value.trim();
  if (!personToDecide()) {
    $('move-error').textContent = state.isTerminal ? 'The game is over.' : 'It is not a person\'s turn to move.';
    return;
  }
  let move;
  try {
    move = state.moveFromString(text);
  } catch (error) {
    showMoveError(error);
    return;
  }
  // An illegal move is refused by the library itself, with its own text, and changes nothing.
  if (playPerson(move)) input.value = '';
}

// -- Games, seats, undo, positions ---------------------------------------------------------

function replaceState(next) {
  generation++;
  pendingBot = null;
  state?.free();
  state = next;
  log = [];
  lastThrow = null;
  $('move-error').textContent = '';
  syncGameControls(state.gameId, state.spec);
  advance();
}

function newGame(event) {
  event?.preventDefault();
  let next;
  try {
    next = new tg.State($('spec-input').value.trim());
  } catch (error) {
    if (!(error instanceof TGError)) throw error;
    $('spec-error').textContent = error.message;
    return;
  }
  $('spec-error').textContent = '';
  seats = [$('seat0').value, $('seat1').value];
  replaceState(next);
}

function undo() {
  if (online) {
    if (online.seat !== null) {
      request(`undo ${online.id} ${log.length} ${online.token}`).then((reply) => {
        $('move-error').textContent = reply.startsWith('ok') ? 'Undo asked: your opponent answers.' : errorText(reply);
      });
    }
    return;
  }
  if (log.length === 0) return;
  generation++;
  pendingBot = null;
  const anyPerson = seats.includes('person');
  do {
    state.undo();
    log.pop();
  } while (log.length > 0 && (state.isChance || (anyPerson && seats[state.player] !== 'person')));
  const throws = log.filter((entry) => entry.chance);
  lastThrow = throws.length ? Number(throws.at(-1).text.split(':')[1]) : null;
  $('move-error').textContent = '';
  advance();
}

function loadPosition(event) {
  event.preventDefault();
  const text = $('paste-input').value.trim();
  let next;
  try {
    next = tg.State.fromString(text.split(' ')[0], text);
  } catch (error) {
    if (!(error instanceof TGError)) throw error;
    $('paste-error').textContent = error.message;
    return;
  }
  $('paste-error').textContent = '';
  replaceState(next);
}

async function copyPosition() {
  const text = state.toString();
  try {
    await navigator.clipboard.writeText(text);
    $('copy-position').textContent = 'Copied';
  } catch {
    // No clipboard permission (an http page, a headless browser): select the text instead.
    const range = document.createRange();
    range.selectNodeContents($('position'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    $('copy-position').textContent = 'Selected: copy it';
  }
  setTimeout(() => { $('copy-position').textContent = 'Copy'; }, 1500);
}

function onSeatChange() {
  seats = [$('seat0').value, $('seat1').value];
  generation++;
  pendingBot = null;
  if (!state.isTerminal) advance();
  else render();
}

// The option controls come from the library's catalogue: a list option is a drop-down of its
// choices, a range option a number field with its bounds.
function buildOptions(gameId, spec) {
  const game = tg.games().find((g) => g.id === gameId);
  const given = Object.fromEntries((spec.split(':')[1] ?? '').split(',').filter(Boolean).map((p) => p.split('=')));
  const box = $('options');
  box.replaceChildren();
  for (const option of game.options) {
    const label = document.createElement('label');
    label.append(`${option.key} `);
    let control;
    if (option.choices) {
      control = document.createElement('select');
      for (const choice of option.choices) {
        control.appendChild(Object.assign(document.createElement('option'), { value: choice, textContent: choice }));
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

function composeSpec() {
  const gameId = $('game-select').value;
  const options = [...$('options').querySelectorAll('[data-key]')]
    .map((control) => `${control.getAttribute('data-key')}=${control.value}`);
  $('spec-input').value = options.length ? `${gameId}:${options.join(',')}` : gameId;
}

function syncGameControls(gameId, spec) {
  $('game-select').value = gameId;
  buildOptions(gameId, spec);
  $('spec-input').value = spec;
  $('seat0').value = seats[0];
  $('seat1').value = seats[1];
}

function setUp() {
  for (const game of tg.games()) {
    $('game-select').appendChild(Object.assign(document.createElement('option'), { value: game.id, textContent: game.name }));
  }
  for (const select of [$('seat0'), $('seat1')]) {
    for (const seat of SEATS) {
      select.appendChild(Object.assign(document.createElement('option'), { value: seat.value, textContent: seat.label }));
    }
    select.addEventListener('change', onSeatChange);
  }
  $('game-select').addEventListener('change', () => {
    buildOptions($('game-select').value, $('game-select').value);
    composeSpec();
  });
  $('new-game-form').addEventListener('submit', newGame);
  $('move-form').addEventListener('submit', onMoveTyped);
  $('undo').addEventListener('click', undo);
  $('pause').addEventListener('click', () => {
    paused = !paused;
    generation++;
    pendingBot = null;
    advance();
  });
  $('paste-form').addEventListener('submit', loadPosition);
  $('online-form').addEventListener('submit', createOnlineMatch);
  $('resign').addEventListener('click', () => {
    if (online?.seat !== null && confirmResign()) request(`resign ${online.id} ${online.token}`);
  });
  $('undo-accept').addEventListener('click', () => answerUndo('accept'));
  $('undo-decline').addEventListener('click', () => answerUndo('decline'));
  $('copy-position').addEventListener('click', copyPosition);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && selectedCell !== null) {
      selectedCell = null;
      advance();
    }
  });
  worker = new Worker(new URL('./bot-worker.js', import.meta.url), { type: 'module' });
  worker.addEventListener('message', onBotAnswer);
  worker.addEventListener('error', (event) => {
    setPhase('error');
    $('status-text').textContent = `The bot worker failed: ${event.message}`;
  });
}

async function main() {
  tg = await load();
  rng = new Rng(params.has('seed') ? BigInt(params.get('seed')) : randomSeed());
  setUp();
  if (params.has('match')) {
    joinMatch(params.get('match'), params.get('seat'), params.get('token'));
    return;
  }
  const first = tg.games()[0].id;
  replaceState(new tg.State(first));
}

// -- Online: a match on tg-server, over WebSocket ---------------------------------------------
//
// The server keeps the match: its moves, its throws, its clocks. This page holds a copy of the
// game in its own tg.State, kept in step by the events the server pushes (docs/server.md):
// `moves FROM M...` is applied move by move with the library, `undone N` takes back to ply N.
// A seat's decisions are sent as `play`, and shown only once the server's event comes back.

// ?bot=SPEC: the page's own seat is played by a bot of the page (for unattended matches).
const onlineBot = params.get('bot');
let online = null;
let socket = null;
let replyQueue = [];
let reconnectDelay = 250;
let clockTimer = null;
let keepAliveTimer = null;
const KEEP_ALIVE_MS = 60000;

function serverUrl() {
  if (params.has('server')) return params.get('server');
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
}

function request(line) {
  return new Promise((resolve) => {
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      resolve('err disconnected the connection to the server is down');
      return;
    }
    replyQueue.push(resolve);
    socket.send(line);
  });
}

function errorText(reply) {
  return reply.split(' ').slice(2).join(' ') || reply;
}

function setConnection(text, stateName) {
  const box = $('connection');
  box.hidden = false;
  box.textContent = text;
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
    else replyQueue.shift()?.(line);
  });
  ws.addEventListener('close', () => {
    if (socket !== ws) return;
    socket = null;
    for (const resolve of replyQueue) resolve('err disconnected the connection to the server was lost');
    replyQueue = [];
    if (!online) return;
    // Nothing is lost: the server stored every acknowledged move; the page asks again for
    // what it missed once it is back.
    setConnection(`Connection lost; reconnecting in ${(reconnectDelay / 1000).toFixed(1)} s…`, 'reconnecting');
    setTimeout(() => connect(() => subscribe(true)), reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 5000);
  });
}

function joinMatch(id, seat, token) {
  online = {
    id, seat: seat === null || seat === undefined || token === null ? null : Number(seat),
    token, clock: null, result: null, undoBy: null, sending: false,
  };
  $('new-game').open = false;
  setConnection('Connecting to the server…', 'connecting');
  if (socket && socket.readyState === WebSocket.OPEN) subscribe(false);
  else connect(() => subscribe(false));
}

// `watch ID PLY` answers with the match's spec, then the events since the ply this page last saw.
async function subscribe(again) {
  const reply = await request(`watch ${online.id} ${state && online.spec ? log.length : 0}`);
  if (!reply.startsWith('ok')) {
    setConnection(`The server refused the match: ${errorText(reply)}`, 'refused');
    return;
  }
  const fields = Object.fromEntries(reply.split(' ').slice(2).map((f) => [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)]));
  if (!online.spec) {
    online.spec = fields.spec;
    const mine = online.seat;
    seats = [0, 1].map((p) => (p === mine ? onlineBot ?? 'person' : 'remote'));
    replaceState(new tg.State(fields.spec));
  }
  if (again) {
    // The server knows how many plies this page had, not which: if a ply it saw was taken back
    // and replaced while it was away, the positions differ now (the reply to `show` comes
    // after the catch-up events), and the page starts its copy again from the first ply.
    const shown = await request(`show ${online.id}`);
    const position = shown.slice(shown.indexOf(' position=') + 10);
    if (shown.startsWith('ok') && position !== state.toString()) {
      replaceState(new tg.State(online.spec));
      await request(`watch ${online.id} 0`);
    }
  }
  setConnection(again ? 'Reconnected.' : 'Connected.', 'connected');
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
  if (!online || words[1] !== online.id) return;
  const kind = words[2];
  if (kind === 'moves') {
    const from = Number(words[3]);
    if (from > log.length) {
      // Plies were missed: ask for them again.
      subscribe(true);
      return;
    }
    takeBackTo(from);
    try {
      for (const name of words.slice(4)) record(state.moveFromString(name));
    } catch (error) {
      // The moves do not follow from this page's copy: a move it saw was taken back while it
      // was away. Start the copy again from the first ply.
      if (!(error instanceof TGError)) throw error;
      replaceState(new tg.State(online.spec));
      subscribe(true);
      return;
    }
    online.sending = false;
    online.undoBy = null;
    generation++;
    pendingBot = null;
    advance();
  } else if (kind === 'undone') {
    takeBackTo(Number(words[3]));
    online.undoBy = null;
    online.sending = false;
    generation++;
    pendingBot = null;
    advance();
  } else if (kind === 'clock') {
    online.clock = { left: [Number(words[3]), Number(words[4])], running: words[5] === '-' ? null : Number(words[5]), at: performance.now() };
    tickClocks();
  } else if (kind === 'undo-requested') {
    online.undoBy = Number(words[3]);
    render();
  } else if (kind === 'undo-declined') {
    online.undoBy = null;
    if (online.seat !== null && Number(words[3]) !== online.seat) $('move-error').textContent = 'Your opponent declined the undo.';
    render();
  } else if (kind === 'result') {
    online.result = { winner: words[3], by: (words[4] ?? 'by=rules').slice(3) };
    if (online.clock) online.clock.running = null;
    generation++;
    pendingBot = null;
    advance();
  }
}

function takeBackTo(ply) {
  while (log.length > ply) {
    state.undo();
    log.pop();
  }
  const throws = log.filter((entry) => entry.chance);
  lastThrow = throws.length ? Number(throws.at(-1).text.split(':')[1]) : null;
}

async function sendMove(move) {
  const name = state.moveToString(move);
  online.sending = true;
  setPhase('sending');
  const reply = await request(`play ${online.id} ${log.length} ${name} ${online.token}`);
  if (reply.startsWith('ok')) return; // the event has brought the move, or is on its way
  online.sending = false;
  // stale-ply and busy mean the page is behind or early: the events will bring it up to date.
  const word = reply.split(' ')[1];
  if (word !== 'stale-ply' && word !== 'busy' && word !== 'disconnected') $('move-error').textContent = errorText(reply);
  if (word === 'busy') setTimeout(() => { if (phase === 'sending') advance(); }, 100);
  else if (word !== 'disconnected') advance();
}

function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 100)) / 10;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  return total < 10 ? `${seconds.toFixed(1)}` : `${minutes}:${String(Math.floor(seconds)).padStart(2, '0')}`;
}

function clockLeft(player) {
  const c = online.clock;
  return c.left[player] - (c.running === player ? performance.now() - c.at : 0);
}

function renderClock(player) {
  const node = document.getElementById(`clock-${player}`);
  if (!node || !online?.clock) return;
  const left = clockLeft(player);
  node.textContent = clockText(left);
  node.setAttribute('data-ms', String(Math.max(0, Math.round(left))));
  node.classList.toggle('running', online.clock.running === player);
  node.classList.toggle('low', online.clock.running === player && left < 10000);
}

// The server decides when a flag falls; the page only counts down between its events.
function tickClocks() {
  if (!document.getElementById('clock-0')) render();
  renderClock(0);
  renderClock(1);
  clearTimeout(clockTimer);
  if (online.clock.running !== null) clockTimer = setTimeout(tickClocks, 100);
}

function renderUndoOffer() {
  const offer = $('undo-offer');
  const show = Boolean(online && online.undoBy !== null && !online.result);
  offer.hidden = !show;
  if (!show) return;
  const mine = online.seat !== null && online.undoBy !== online.seat;
  $('undo-offer-text').textContent = `${SEAT_NAMES[online.undoBy]} asks to take back the last move.`;
  $('undo-accept').hidden = !mine;
  $('undo-decline').hidden = !mine;
}

async function answerUndo(word) {
  const reply = await request(`${word} ${online.id} ${log.length} ${online.token}`);
  if (!reply.startsWith('ok')) $('move-error').textContent = errorText(reply);
}

function confirmResign() {
  return params.get('speed') === 'fast' || window.confirm('Resign this match?');
}

function shareLink(query) {
  const url = new URL(location.href);
  url.search = new URLSearchParams(query).toString();
  return url.toString();
}

async function createOnlineMatch(event) {
  event.preventDefault();
  const spec = $('spec-input').value.trim();
  const clock = $('clock-input').value.trim();
  $('online-error').textContent = '';
  const open = socket && socket.readyState === WebSocket.OPEN;
  if (!open) {
    await new Promise((resolve, reject) => {
      connect(resolve);
      socket.addEventListener('error', () => reject(new Error('no server')), { once: true });
    }).catch(() => null);
  }
  const reply = await request(`new ${spec}${clock ? ` clock=${clock}` : ''}`);
  if (!reply.startsWith('ok')) {
    $('online-error').textContent = reply.startsWith('err disconnected')
      ? 'No match server: this page must be served by tg-server --web.' : errorText(reply);
    return;
  }
  const [, id, token0, token1] = reply.split(' ');
  const keep = {};
  if (params.has('speed')) keep.speed = params.get('speed');
  if (onlineBot) keep.bot = onlineBot;
  history.replaceState(null, '', shareLink({ ...keep, match: id, seat: 0, token: token0 }));
  $('link-opponent').value = shareLink({ match: id, seat: 1, token: token1 });
  $('link-watch').value = shareLink({ match: id });
  $('online-links').hidden = false;
  online = null;
  joinMatch(id, '0', token0);
}

main().catch((error) => {
  document.body.setAttribute('data-phase', 'error');
  $('tagline').textContent = `The library could not be loaded: ${error.message}`;
  throw error;
});
