// Draws a board as SVG from a snapshot of the engine's answers (see snapshot() in session.js).
// Nothing here knows a rule: every count, owner, flag, name and legal move is the library's.

import { t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

// Column letters as the engine names them: the cell name without its row number.
function columnLabel(view, col) {
  return view.cell(0, col).name.replace(/[0-9]+$/, '');
}

// A fixed spiral, so that a hole's pebbles keep their places from one move to the next.
function pebbleOffsets(n, spread) {
  const golden = Math.PI * (3 - Math.sqrt(5));
  const offsets = [];
  for (let i = 0; i < n; i++) {
    const r = spread * Math.sqrt(i + 0.5);
    offsets.push([r * Math.cos(i * golden), r * Math.sin(i * golden)]);
  }
  return offsets;
}

const MOST_PEBBLES = 12;
// Counts are drawn this large (in the board's units), and the smallest cell on a narrow
// screen is such that they stay at least 12 px high: 21 * 42 / 72 and 22 * 26 / 46.
const HOLE_COUNT_SIZE = 21;
const PIECE_COUNT_SIZE = 22;
// The coordinates along the edges are sized for the screen, not the board: a board drawn
// small (a phone) gets bigger ones, up to what its margins hold, so that they stay readable.
const LABEL_PX = 11;
const LABEL_UNITS = { least: 12, most: 20 };
// The board's margin, where the coordinates are written: wide enough for the largest, narrow
// enough that Hus 8 wide and Tab 13 wide still fit a 390 px phone without scrolling.
const EDGE_MARGIN = 24;

// Where a cell is drawn: row 0 at the bottom, column a on the left, unless the board is
// turned round (North's own view), which puts both the other way.
function placeOf(view, row, col) {
  return view.flipped ? { fromTop: row, across: view.cols - 1 - col } : { fromTop: view.rows - 1 - row, across: col };
}

// On a narrow screen a wide board scrolls sideways rather than shrink its cells below a
// fingertip (the board's frame scrolls, not the page).
function keepTappable(svg, width, cellSize, smallestCellPx) {
  svg.style.minWidth = `${Math.ceil((width * smallestCellPx) / cellSize)}px`;
}

// The cell next to this one on the screen in an arrow key's direction, null at the board's
// edge (the focus stops there), undefined for another key. A turned board runs both ways round.
const ARROWS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [1, 0], ArrowDown: [-1, 0] };

function neighbour(view, cell, key) {
  const step = ARROWS[key];
  if (!step) return undefined;
  const sign = view.flipped ? -1 : 1;
  const row = cell.row + step[0] * sign;
  const col = cell.col + step[1] * sign;
  if (row < 0 || row >= view.rows || col < 0 || col >= view.cols) return null;
  return row * view.cols + col;
}

function cellGroup(view, cell, x, y, handlers, describe) {
  const legal = view.legalByCell.get(cell.index);
  const classes = ['cell'];
  if (legal) classes.push('legal');
  if (cell.flags & view.CELL_DEAD) classes.push('dead');
  if (view.lastCells.has(cell.index)) classes.push('last');
  else if (view.changedCells.has(cell.index)) classes.push('changed');
  if (view.selectedCell === cell.index) classes.push('selected');
  if (view.previewCells.has(cell.index)) classes.push('preview');
  if (view.bestCell === cell.index) classes.push('best');
  const group = el('g', {
    class: classes.join(' '),
    'data-cell': cell.index,
    'data-name': cell.name,
    'data-count': cell.count,
    'aria-label': describe(cell, legal),
    transform: `translate(${x} ${y})`,
  });
  // The arrow keys go from cell to cell, every one of them (a cell that cannot be played is
  // still read out), and stay on the board: the page's own arrow keys step the replay.
  group.setAttribute('tabindex', '-1');
  group.addEventListener('keydown', (event) => {
    const next = neighbour(view, cell, event.key);
    if (next === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    if (next !== null) group.ownerSVGElement.querySelector(`[data-cell="${next}"]`)?.focus();
  });
  if (legal) {
    group.setAttribute('role', 'button');
    group.setAttribute('tabindex', '0');
    group.addEventListener('click', () => handlers.activate(cell.index));
    group.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        handlers.activate(cell.index);
      }
    });
    group.addEventListener('focus', () => handlers.hover(cell.index));
    group.addEventListener('blur', () => handlers.hover(null));
    group.addEventListener('mouseenter', () => handlers.hover(cell.index));
    group.addEventListener('mouseleave', () => handlers.hover(null));
    el('title', {}, group).textContent = describe(cell, legal);
  } else {
    group.setAttribute('role', 'img');
  }
  return group;
}

function ownerName(view, player) {
  return view.seatNames[player];
}

function describeHole(view) {
  return (cell, legal) => {
    const parts = [cell.name];
    if (cell.flags & view.CELL_DEAD) parts.push(t('cell.dead'));
    else parts.push(t('cell.counters', cell.count));
    parts.push(t('cell.hole-of', ownerName(view, cell.owner)));
    if (legal) parts.push(t('cell.legal', legal.map((m) => m.name)));
    if (view.lastCells.has(cell.index)) parts.push(t('cell.last'));
    return parts.join(', ');
  };
}

function drawMancala(view, handlers) {
  const size = 72;
  const margin = EDGE_MARGIN;
  // The gap between the two players' territories on four-row boards.
  const split = view.rows === 4 ? 14 : 6;
  const width = margin * 2 + view.cols * size;
  const height = margin * 2 + view.rows * size + split;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'presentation' });
  keepTappable(svg, width, size, 42);
  el('rect', { x: 2, y: 2, width: width - 4, height: height - 4, rx: 18, fill: 'var(--wood)',
    stroke: 'var(--wood-dark)', 'stroke-width': 3 }, svg);
  const yOf = (row) => {
    const { fromTop } = placeOf(view, row, 0);
    return margin + fromTop * size + (fromTop >= view.rows / 2 ? split : 0);
  };
  for (let col = 0; col < view.cols; col++) {
    const x = margin + placeOf(view, 0, col).across * size + size / 2;
    const label = columnLabel(view, col);
    el('text', { x, y: margin / 2 + 1, class: 'edge-label' }, svg).textContent = label;
    el('text', { x, y: height - margin / 2 - 1, class: 'edge-label' }, svg).textContent = label;
  }
  const describe = describeHole(view);
  for (let row = 0; row < view.rows; row++) {
    const y = yOf(row);
    el('text', { x: margin / 2, y: y + size / 2, class: 'edge-label' }, svg).textContent = row + 1;
    el('text', { x: width - margin / 2, y: y + size / 2, class: 'edge-label' }, svg).textContent = row + 1;
    for (let col = 0; col < view.cols; col++) {
      const cell = view.cell(row, col);
      const x = margin + placeOf(view, row, col).across * size;
      el('rect', { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 10,
        class: `territory-${cell.owner}` }, svg);
      const group = cellGroup(view, cell, x + size / 2, y + size / 2, handlers, describe);
      // The whole cell takes the click, not only the hole: a bigger target for a finger.
      el('rect', { x: -size / 2, y: -size / 2, width: size, height: size, fill: 'transparent' }, group);
      // Marks are drawn only where they show: a big board is redrawn after every move. They
      // lie on the territory, not on the dark hole, and differ in shape as well as colour:
      // a ring round a hole that can be played, a square round the last move's cells.
      const square = { x: -size / 2 + 3, y: -size / 2 + 3, width: size - 6, height: size - 6, rx: 8 };
      if (view.lastCells.has(cell.index)) el('rect', { ...square, class: 'last-mark' }, group);
      else if (view.changedCells.has(cell.index)) el('rect', { ...square, class: 'change-mark' }, group);
      el('circle', { r: 28, class: 'hole' }, group);
      if (view.legalByCell.has(cell.index)) el('circle', { r: 31, class: 'ring' }, group);
      const dead = cell.flags & view.CELL_DEAD;
      if (dead) {
        el('path', { d: 'M -10 -10 L 10 10 M 10 -10 L -10 10', stroke: '#5b4a3a', 'stroke-width': 3 }, group);
      } else {
        drawHoleCount(group, cell.count);
      }
      svg.appendChild(group);
    }
  }
  return svg;
}

// A hole's counters: pebbles and a badge up to 12, a number beyond. Also used by the
// animation, which redraws a hole's count as each counter drops.
export function drawHoleCount(group, count) {
  for (const node of group.querySelectorAll('.pebble, .count, .count-badge, .count-badge-text')) node.remove();
  group.setAttribute('data-count', count);
  if (count > MOST_PEBBLES) {
    el('text', { class: 'count', 'font-size': HOLE_COUNT_SIZE + 3 }, group).textContent = count;
  } else if (count > 0) {
    for (const [dx, dy] of pebbleOffsets(count, 5.6)) {
      el('circle', { cx: dx.toFixed(1), cy: dy.toFixed(1), r: 4.6, class: 'pebble' }, group);
    }
    el('circle', { cx: 21, cy: -21, r: 14, class: 'count-badge' }, group);
    el('text', { x: 21, y: -21, class: 'count-badge-text', 'font-size': HOLE_COUNT_SIZE }, group).textContent = count;
  }
}

export const svgElement = el;

function describePiece(view) {
  return (cell, legal) => {
    const parts = [cell.name];
    if (cell.owner < 0) parts.push(t('cell.empty'));
    else if (cell.flags & view.CELL_LOCKED) parts.push(t('cell.locked', ownerName(view, cell.owner)));
    else if (cell.count === 1) parts.push(t('cell.piece', ownerName(view, cell.owner)));
    else parts.push(t('cell.king', cell.count, ownerName(view, cell.owner)));
    if (legal) parts.push(t('cell.moves', legal.map((m) => m.name)));
    if (view.lastCells.has(cell.index)) parts.push(t('cell.last'));
    return parts.join(', ');
  };
}

function drawLock(group, owner) {
  // A small padlock: drawn, not a font glyph, so that it looks the same everywhere.
  el('rect', { x: -5, y: -1, width: 10, height: 8, rx: 1.5, class: `lock lock-${owner}` }, group);
  el('path', { d: 'M -3 -1 V -4 A 3 3 0 0 1 3 -4 V -1', class: `lock lock-${owner}` }, group);
}

function drawTab(view, handlers) {
  const size = 46;
  const margin = EDGE_MARGIN;
  const width = margin * 2 + view.cols * size;
  const height = margin * 2 + view.rows * size;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, role: 'presentation' });
  keepTappable(svg, width, size, 26);
  el('rect', { x: 1, y: 1, width: width - 2, height: height - 2, rx: 10, fill: 'var(--wood)',
    stroke: 'var(--wood-dark)', 'stroke-width': 2 }, svg);
  for (let col = 0; col < view.cols; col++) {
    const x = margin + placeOf(view, 0, col).across * size + size / 2;
    const label = columnLabel(view, col);
    el('text', { x, y: margin / 2, class: 'edge-label' }, svg).textContent = label;
    el('text', { x, y: height - margin / 2, class: 'edge-label' }, svg).textContent = label;
  }
  const describe = describePiece(view);
  for (let row = 0; row < view.rows; row++) {
    const y = margin + placeOf(view, row, 0).fromTop * size;
    el('text', { x: margin / 2, y: y + size / 2, class: 'edge-label' }, svg).textContent = row + 1;
    el('text', { x: width - margin / 2, y: y + size / 2, class: 'edge-label' }, svg).textContent = row + 1;
    const central = row > 0 && row < view.rows - 1;
    for (let col = 0; col < view.cols; col++) {
      const cell = view.cell(row, col);
      const x = margin + placeOf(view, row, col).across * size;
      const group = cellGroup(view, cell, x + size / 2, y + size / 2, handlers, describe);
      // The square itself is the target of clicks, so an empty one can be played onto too.
      el('rect', { x: -size / 2, y: -size / 2, width: size, height: size,
        class: `tab-square${central ? ' central' : ''}` }, group);
      const mark = { x: -size / 2 + 2, y: -size / 2 + 2, width: size - 4, height: size - 4, rx: 6 };
      if (view.lastCells.has(cell.index)) el('rect', { ...mark, class: 'last-mark' }, group);
      else if (view.changedCells.has(cell.index)) el('rect', { ...mark, class: 'change-mark' }, group);
      if (view.legalByCell.has(cell.index)) {
        el('rect', { x: -size / 2 + 6, y: -size / 2 + 6, width: size - 12, height: size - 12, rx: 4, class: 'ring' }, group);
      }
      if (cell.owner >= 0) {
        // A king is drawn larger the more pieces it holds, up to the square's size.
        const radius = cell.count === 1 ? 13 : Math.min(20, 14 + 1.5 * cell.count);
        el('circle', { r: radius, class: `piece-${cell.owner}` }, group);
        if (cell.count > 1) {
          el('circle', { r: radius - 4, class: `piece-${cell.owner}`, 'stroke-width': 1 }, group);
          el('text', { class: `piece-text-${cell.owner}`, 'font-size': PIECE_COUNT_SIZE }, group).textContent = cell.count;
        } else if (cell.flags & view.CELL_LOCKED) {
          drawLock(group, cell.owner);
        }
      }
      svg.appendChild(group);
    }
  }
  return svg;
}

// The engine's value of the best move from each analysed cell, written under it: -1 loss,
// 0 draw, +1 win for the player to move.
function drawValues(svg, view) {
  if (!view.values) return;
  for (const [index, value] of view.values) {
    const group = svg.querySelector(`[data-cell="${index}"]`);
    if (!group) continue;
    const text = el('text', { class: 'value', y: view.gameId === 'tab' ? 17 : 27 }, group);
    text.textContent = `${value > 0 ? '+' : value < 0 ? '−' : '±'}${Math.abs(value).toFixed(2)}`;
    group.setAttribute('data-value', value.toFixed(4));
  }
}

// The coordinates' size for the scale the board is drawn at (none while it is not shown).
function fitLabels(svg) {
  const scale = svg.getScreenCTM()?.a;
  if (!scale) return;
  const size = Math.min(LABEL_UNITS.most, Math.max(LABEL_UNITS.least, LABEL_PX / scale));
  svg.style.setProperty('--edge-label-size', `${Math.ceil(size * 100) / 100}px`);
}

// A board's drawn size changes with the window, and a diagram's when its panel opens.
const resized = new ResizeObserver((entries) => {
  for (const entry of entries) {
    const svg = entry.target.querySelector(':scope > svg');
    if (svg) fitLabels(svg);
  }
});

export function drawBoard(container, view, handlers) {
  const svg = view.gameId === 'tab' ? drawTab(view, handlers) : drawMancala(view, handlers);
  drawValues(svg, view);
  const focused = container.contains(document.activeElement) ? document.activeElement : null;
  const focusedName = focused?.getAttribute('data-name');
  const wasLegal = Boolean(focused?.classList.contains('legal'));
  const offered = container.querySelector('.cell.legal') !== null;
  container.replaceChildren(svg);
  fitLabels(svg);
  resized.observe(container);
  // Redrawing replaces every node: keep the keyboard user's place on the board. A hole that
  // was played (or a turn that has just come) sends the focus to the first one that can be
  // played; a cell the person went to with the arrow keys keeps it.
  if (focusedName) {
    const again = container.querySelector(`[data-name="${focusedName}"]`);
    const first = container.querySelector('.cell.legal');
    const moveOn = first && !again?.classList.contains('legal') && (wasLegal || !offered);
    (moveOn ? first : again)?.focus({ preventScroll: true });
  }
}

// A board wider than its frame scrolls sideways in it: the given cells are brought into view
// when any of them is out of it, their span centred (or the first cell, when the span is
// wider than the frame).
export function scrollCellsIntoView(frame, nodes, smooth) {
  if (frame.scrollWidth <= frame.clientWidth || nodes.length === 0) return;
  const box = frame.getBoundingClientRect();
  const spans = nodes.map((node) => node.getBoundingClientRect());
  const left = Math.min(...spans.map((r) => r.left));
  const right = Math.max(...spans.map((r) => r.right));
  if (left >= box.left && right <= box.right) return;
  const [from, to] = right - left <= frame.clientWidth ? [left, right] : [spans[0].left, spans[0].right];
  const centre = frame.scrollLeft + (from + to) / 2 - box.left;
  frame.scrollTo({ left: centre - frame.clientWidth / 2, behavior: smooth ? 'smooth' : 'auto' });
}

// Marks the cells a move would change (drawn on demand: most moves are never previewed).
export function markPreview(container, cells) {
  for (const node of container.querySelectorAll('[data-cell]')) {
    const on = cells.has(Number(node.getAttribute('data-cell')));
    node.classList.toggle('preview', on);
    const mark = node.querySelector('.preview-mark');
    if (on && !mark) {
      const box = node.firstElementChild?.tagName === 'title' ? node.children[1] : node.firstElementChild;
      const size = Number(box?.getAttribute('width') ?? 58);
      el('rect', { x: -size / 2 + 4, y: -size / 2 + 4, width: size - 8, height: size - 8, rx: 5,
        class: 'preview-mark' }, node);
    } else if (!on && mark) {
      mark.remove();
    }
  }
}

// The four sticks: `white` of them show their white side (a throw of 6 shows none); null,
// not thrown yet, shows them lying unthrown, unlike any throw.
export function drawSticks(svg, white) {
  svg.replaceChildren();
  for (let i = 0; i < 4; i++) {
    const face = white === null ? 'unthrown' : i < white ? 'white' : 'dark';
    el('rect', { x: 8 + i * 28, y: 6, width: 18, height: 52, rx: 8, class: `stick ${face}` }, svg);
  }
}
