// The "How to play" panel: the rules of the game on the board in plain words (from the
// catalogue), two small diagrams drawn by the library (the start, and the position after
// South's first legal move, with what that move changed marked), and a link to the game's
// page in docs/.
import { drawBoard } from './board.js';
import { t } from './i18n.js';
import {
  S, $, boardSignature, originCell, snapshot,
} from './session.js';

const sides = () => [t('side.0'), t('side.1')];

function diagram(state, marks, caption) {
  const figure = document.createElement('figure');
  figure.className = 'diagram';
  const board = document.createElement('div');
  board.className = 'diagram-board';
  board.dir = 'ltr';
  drawBoard(board, snapshot(sides(), state, marks), {});
  // A diagram is a picture: it scales with the panel, it never asks for a finger's width.
  board.querySelector('svg').style.minWidth = '';
  board.querySelector('svg').setAttribute('role', 'img');
  board.querySelector('svg').setAttribute('aria-label', caption);
  const text = document.createElement('figcaption');
  text.textContent = caption;
  figure.append(board, text);
  return figure;
}

// The likeliest outcome of a chance state (a throw that may earn another could repeat).
function likeliest(s) {
  return s.chanceOutcomes().reduce((best, o) => (o.probability > best.probability ? o : best)).move;
}

// South's first decision from the start, chance resolved by the library's outcomes: for a
// throw, the first outcome after which (the likeliest throws following) South has a move
// other than a pass.
function firstMove(start) {
  const after = start.clone();
  const moverSees = (s) => !s.isChance && s.legalMoveNames().some((name) => name !== 'pass');
  const resolve = (s) => {
    for (let step = 0; step < 8 && s.isChance; step++) s.apply(likeliest(s));
  };
  if (after.isChance) {
    const pick = after.chanceOutcomes().find(({ move }) => {
      const probe = after.clone();
      try {
        probe.apply(move);
        resolve(probe);
        return moverSees(probe);
      } finally {
        probe.free();
      }
    });
    if (pick) after.apply(pick.move);
    resolve(after);
  }
  if (after.isTerminal || after.isChance) return { after, move: null };
  const before = boardSignature(after).cells;
  const move = after.legalMoves()[0];
  const name = after.moveToString(move);
  after.apply(move);
  const changed = new Set();
  boardSignature(after).cells.forEach((cell, index) => { if (cell !== before[index]) changed.add(index); });
  return { after, move: name, origin: originCell(move), changed };
}

export function renderLearn() {
  const { state } = S;
  const box = $('learn-body');
  box.replaceChildren();
  for (const paragraph of t(`learn.${state.gameId}`)) {
    box.appendChild(Object.assign(document.createElement('p'), { textContent: paragraph }));
  }
  const start = new S.tg.State(state.spec);
  try {
    const figures = document.createElement('div');
    figures.className = 'diagrams';
    figures.appendChild(diagram(start, { last: new Set(), changed: new Set() }, t('learn.start')));
    const { after, move, origin, changed } = firstMove(start);
    try {
      if (move) {
        figures.appendChild(diagram(after, { last: new Set([origin]), changed },
          t('learn.after', t('side.0'), move)));
      }
    } finally {
      after.free();
    }
    box.appendChild(figures);
  } finally {
    start.free();
  }
  const link = Object.assign(document.createElement('a'), {
    href: `docs/${state.gameId}.md`, textContent: t('learn.more', t(`game.${state.gameId}`)),
  });
  link.id = 'learn-more';
  const more = document.createElement('p');
  more.appendChild(link);
  box.appendChild(more);
}
