// The web board's entry point: loads the library, fills the page's words and controls, wires
// them to the controller, and starts a local game or joins the match named in the address.
import { load, Rng } from './traditional-games/traditional-games.js';
import {
  setLanguage, preferredLanguage, storedLanguage, t, catalogues, language,
} from './i18n.js';
import {
  S, $, params, ANIMATION_SPEEDS, initialAnimation, rememberAnimation,
} from './session.js';
import {
  newGame, onMoveTyped, undo, togglePause, toggleFlip, loadPosition, onSeatChange, cancelChoice,
  replaceState, startWorker, viewPly, stepView, rematch, recordText, openRecord,
  requestAnalysis, toggleAnalysis, throwByPerson, resignGame, offerDraw,
} from './controller.js';
import {
  buildOptions, composeSpec, copyPosition, fillSelects, fillSeats, render, showSeatTitle,
} from './panels.js';
import { renderLearn } from './learn.js';
import {
  joinMatch, linkFields, createOnlineMatch, answerUndo, answerDraw,
} from './online.js';
import { initAccount, accountName } from './account.js';
import { loadLevels } from './levels.js';
import { wireLobby, renderLists } from './lobby.js';
import {
  wireHistory, renderHistory, openPlayerPage, openMatchPage, replayMatch,
} from './history.js';

function randomSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (BigInt(words[0]) << 32n) | BigInt(words[1]);
}

// Another language: every string again, the New game form as the person left it.
function switchLanguage(code) {
  const game = $('game-select').value;
  const spec = $('spec-input').value;
  const seats = [$('seat0').value, $('seat1').value];
  setLanguage(code, true);
  fillSelects();
  for (const option of $('animation').options) option.textContent = t(`animation.${option.value}`);
  $('game-select').value = game;
  // The seats' ratings are the chosen game's (fillSelects read the first game's).
  fillSeats(game);
  buildOptions(game, spec);
  $('spec-input').value = spec;
  [$('seat0').value, $('seat1').value] = seats;
  renderLists();
  renderHistory();
  if (S.state) {
    renderLearn();
    render();
  }
}

function fillLanguages() {
  const select = $('language');
  for (const [code, catalogue] of Object.entries(catalogues)) {
    select.appendChild(Object.assign(document.createElement('option'), { value: code, textContent: catalogue['meta.name'], lang: code }));
  }
  select.value = language();
  select.addEventListener('change', () => switchLanguage(select.value));
}

function fillAnimation() {
  const select = $('animation');
  S.animation = initialAnimation();
  for (const value of Object.keys(ANIMATION_SPEEDS)) {
    select.appendChild(Object.assign(document.createElement('option'), { value, textContent: t(`animation.${value}`) }));
  }
  select.value = S.animation;
  select.addEventListener('change', () => {
    S.animation = select.value;
    rememberAnimation(select.value);
  });
}

function wire() {
  fillLanguages();
  fillAnimation();
  fillSelects();
  for (const select of [$('seat0'), $('seat1')]) {
    select.addEventListener('change', onSeatChange);
    select.addEventListener('change', () => showSeatTitle(select));
  }
  $('game-select').addEventListener('change', () => {
    buildOptions($('game-select').value, $('game-select').value);
    composeSpec();
    fillSeats();
  });
  $('new-game-form').addEventListener('submit', newGame);
  $('move-form').addEventListener('submit', onMoveTyped);
  $('undo').addEventListener('click', undo);
  $('pause').addEventListener('click', togglePause);
  $('flip').addEventListener('click', toggleFlip);
  $('paste-form').addEventListener('submit', loadPosition);
  $('online-form').addEventListener('submit', createOnlineMatch);
  wireLobby();
  wireHistory(accountName);
  $('resign').addEventListener('click', resignGame);
  $('draw-offer').addEventListener('click', offerDraw);
  $('throw').addEventListener('click', throwByPerson);
  $('undo-accept').addEventListener('click', () => answerUndo('accept'));
  $('undo-decline').addEventListener('click', () => answerUndo('decline'));
  $('draw-accept').addEventListener('click', () => answerDraw('accept'));
  $('draw-decline').addEventListener('click', () => answerDraw('decline'));
  $('copy-position').addEventListener('click', copyPosition);
  $('rematch').addEventListener('click', rematch);
  $('hint-button').addEventListener('click', requestAnalysis);
  $('analysis').addEventListener('click', toggleAnalysis);
  // The record is written when the link is followed, so it holds the game as it is then.
  $('download-record').addEventListener('click', () => {
    const link = $('download-record');
    URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([recordText()], { type: 'text/plain' }));
    link.download = `${S.state.gameId}-${new Date().toISOString().slice(0, 10)}.tgr`;
  });
  $('record-file').addEventListener('change', () => {
    const file = $('record-file').files[0];
    if (file) openRecord(file);
    $('record-file').value = '';
  });
  $('replay-live').addEventListener('click', () => viewPly(null));
  // A click on a move of the list shows the position after it.
  $('move-list').addEventListener('click', (event) => {
    const item = event.target.closest('li');
    if (item) viewPly([...$('move-list').children].indexOf(item) + 1);
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      if (S.viewPly !== null) viewPly(null);
      else cancelChoice();
      return;
    }
    // Keys step through the game, except while the person types.
    if (event.target.closest?.('input, textarea, select') || !S.state) return;
    const steps = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
    if (event.key in steps) {
      event.preventDefault();
      stepView(steps[event.key]);
    } else if (event.key === 'Home') {
      viewPly(0);
    } else if (event.key === 'End') {
      viewPly(null);
    } else if (event.key === 'Enter' && event.target.closest?.('#move-list li')) {
      event.target.click();
    }
  });
  startWorker();
}

async function main() {
  setLanguage(preferredLanguage(storedLanguage()));
  // The levels (docs/ratings/levels.json) arrive with the engine: the seat choices need both.
  [S.tg] = await Promise.all([load(), loadLevels()]);
  S.rng = new Rng(params.has('seed') ? BigInt(params.get('seed')) : randomSeed());
  wire();
  // The account panel fills in when the server answers; the board does not wait for it.
  initAccount();
  const link = linkFields();
  if (link.has('match')) {
    joinMatch(link.get('match'), link.get('seat'), link.get('token'), link.get('invite'));
    return;
  }
  replaceState(new S.tg.State(S.tg.games()[0].id));
  // Links to a player's page, a match's page or a stored match's replay (history.js).
  if (params.has('player')) openPlayerPage(params.get('player'));
  else if (params.has('match-page')) openMatchPage(params.get('match-page'));
  if (params.has('replay')) replayMatch(params.get('replay'));
}

main().catch((error) => {
  document.body.setAttribute('data-phase', 'error');
  $('tagline').textContent = t('page.load-failed', error.message);
  throw error;
});
