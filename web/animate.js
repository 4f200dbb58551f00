// A move played out on the board from the library's story of it (story.js): the hand lifts
// counters and drops them hole by hole along the real path, relay laps included; captured
// counters fly to the capturer's side; a Tab piece walks square by square; kings form and
// split. The board on screen is the position before the move; every count it shows during
// the animation is that count plus the events so far (the story is replayable by
// construction), and the page draws the position after the move once it is done.
import { drawHoleCount, scrollCellsIntoView, svgElement as el } from './board.js';
import { EVENT } from './story.js';

// A drop takes this long at the normal speed; a long sowing is sped up so that no move
// takes more than about four seconds, and the laps the story elides are not shown at all.
const STEP_MS = 170;
const LONGEST_MS = 4000;

const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function centreOf(group) {
  const [x, y] = (group.getAttribute('transform') ?? '').match(/-?[\d.]+/g).map(Number);
  return { x, y };
}

// Plays events on the board in container (drawn by board.js with the position before the
// move). alive() says whether the page still wants it (a new game or undo stops it);
// bottomPlayer is the side drawn at the bottom (captures fly towards their capturer).
export async function animateStory(container, events, { factor, alive, bottomPlayer, isTab }) {
  const svg = container.querySelector('svg');
  if (!svg || factor === 0) return;
  const cellNode = (index) => svg.querySelector(`[data-cell="${index}"]`);
  const counts = new Map();
  const countOf = (index) => counts.get(index) ?? Number(cellNode(index)?.getAttribute('data-count') ?? 0);
  const setCount = (index, count) => {
    counts.set(index, count);
    const group = cellNode(index);
    if (group && !isTab) drawHoleCount(group, count);
  };
  const moves = events.filter((e) => e.kind === EVENT.DROP || e.kind === EVENT.STEP || e.kind === EVENT.MOVE_TO).length;
  const step = Math.max(12, Math.min(STEP_MS * factor, (LONGEST_MS * factor) / Math.max(1, moves)));
  const height = Number(svg.getAttribute('viewBox').split(' ')[3]);

  const hand = el('g', { class: `hand${isTab ? ' hand-piece' : ''}` }, svg);
  el('circle', { r: 16 }, hand);
  const label = el('text', {}, hand);
  hand.style.transition = `transform ${Math.round(step * 0.8)}ms ease-out`;
  hand.style.opacity = '0';
  let inHand = 0;
  const showHand = (count, player = null) => {
    inHand = count;
    label.textContent = count > 0 ? String(count) : '';
    hand.style.opacity = count > 0 ? '1' : '0';
    if (player !== null) hand.setAttribute('class', `hand${isTab ? ` hand-piece piece-${player}` : ''}`);
  };
  const moveHand = (index) => {
    const group = cellNode(index);
    if (!group) return;
    const { x, y } = centreOf(group);
    hand.style.transform = `translate(${x}px, ${y}px)`;
    // A wide board's frame follows the hand.
    scrollCellsIntoView(container.parentElement, [group], true);
    container.setAttribute('data-anim-cell', group.getAttribute('data-name'));
  };
  const fly = (index, count, player) => {
    const group = cellNode(index);
    if (!group) return;
    const { x, y } = centreOf(group);
    const token = el('g', { class: 'flying' }, svg);
    el('circle', { r: 14 }, token);
    el('text', {}, token).textContent = String(count);
    token.style.transform = `translate(${x}px, ${y}px)`;
    token.style.transition = `transform ${Math.round(step * 3)}ms ease-in, opacity ${Math.round(step * 3)}ms ease-in`;
    requestAnimationFrame(() => {
      token.style.transform = `translate(${x}px, ${player === bottomPlayer ? height + 20 : -20}px)`;
      token.style.opacity = '0.2';
    });
    setTimeout(() => token.remove(), step * 3 + 50);
  };
  const flash = (index, text) => {
    const group = cellNode(index);
    if (!group) return;
    group.classList.add('story-flash');
    const note = el('text', { class: 'story-note', y: -20 }, group);
    note.textContent = text;
  };

  try {
    for (const e of events) {
      if (!alive()) return;
      switch (e.kind) {
        case EVENT.LIFT:
          setCount(e.cell, countOf(e.cell) - e.count);
          moveHand(e.cell);
          showHand(inHand + e.count);
          await wait(step);
          break;
        case EVENT.DROP:
          moveHand(e.cell);
          await wait(step * 0.8);
          setCount(e.cell, countOf(e.cell) + e.count);
          showHand(inHand - e.count);
          await wait(step * 0.2);
          break;
        case EVENT.RESOW:
          setCount(e.cell, countOf(e.cell) - e.count);
          fly(e.cell, e.count, e.player ?? bottomPlayer);
          showHand(inHand + e.count);
          await wait(step * 2);
          break;
        case EVENT.CAPTURE: case EVENT.GATHER: case EVENT.TAKE:
          setCount(e.cell, countOf(e.cell) - e.count);
          fly(e.cell, e.count, e.player);
          if (e.kind === EVENT.TAKE) cellNode(e.cell)?.classList.add('story-taken');
          await wait(step * (e.kind === EVENT.GATHER ? 0.5 : 2));
          break;
        case EVENT.SET:
          setCount(e.cell, e.count);
          break;
        case EVENT.FILL:
          setCount(e.cell, countOf(e.cell) + e.count);
          await wait(step * 0.5);
          break;
        case EVENT.ELISION: case EVENT.ENDLESS:
          label.textContent = '…';
          await wait(step * 3);
          break;
        case EVENT.MOVE_FROM:
          cellNode(e.cell)?.classList.add('story-lifted');
          moveHand(e.cell);
          showHand(e.count, e.player);
          await wait(step);
          break;
        case EVENT.STEP:
          moveHand(e.cell);
          await wait(step);
          break;
        case EVENT.MOVE_TO:
          moveHand(e.cell);
          await wait(step);
          showHand(0);
          break;
        case EVENT.KING:
          flash(e.cell, `♔${e.count}`);
          await wait(step * 3);
          break;
        case EVENT.SPLIT:
          flash(e.cell, `−${e.count}`);
          await wait(step * 2);
          break;
        default:
          break;
      }
    }
  } finally {
    hand.remove();
    container.removeAttribute('data-anim-cell');
  }
}
