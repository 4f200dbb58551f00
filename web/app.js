// The web board's entry point: loads the library, fills the page's words and controls, wires
// them to the controller, and starts a local game or joins the match named in the address.
import { load, Rng } from './traditional-games/traditional-games.js';
import { setLanguage, preferredLanguage, t } from './i18n.js';
import { S, $, params } from './session.js';
import {
  newGame, onMoveTyped, undo, togglePause, loadPosition, onSeatChange, cancelChoice, replaceState,
  startWorker,
} from './controller.js';
import { buildOptions, composeSpec, copyPosition, fillSelects } from './panels.js';
import {
  joinMatch, createOnlineMatch, answerUndo, resign,
} from './online.js';

function randomSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return (BigInt(words[0]) << 32n) | BigInt(words[1]);
}

function wire() {
  fillSelects();
  for (const select of [$('seat0'), $('seat1')]) select.addEventListener('change', onSeatChange);
  $('game-select').addEventListener('change', () => {
    buildOptions($('game-select').value, $('game-select').value);
    composeSpec();
  });
  $('new-game-form').addEventListener('submit', newGame);
  $('move-form').addEventListener('submit', onMoveTyped);
  $('undo').addEventListener('click', undo);
  $('pause').addEventListener('click', togglePause);
  $('paste-form').addEventListener('submit', loadPosition);
  $('online-form').addEventListener('submit', createOnlineMatch);
  $('resign').addEventListener('click', resign);
  $('undo-accept').addEventListener('click', () => answerUndo('accept'));
  $('undo-decline').addEventListener('click', () => answerUndo('decline'));
  $('copy-position').addEventListener('click', copyPosition);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') cancelChoice();
  });
  startWorker();
}

async function main() {
  setLanguage(preferredLanguage());
  S.tg = await load();
  S.rng = new Rng(params.has('seed') ? BigInt(params.get('seed')) : randomSeed());
  wire();
  if (params.has('match')) {
    joinMatch(params.get('match'), params.get('seat'), params.get('token'));
    return;
  }
  replaceState(new S.tg.State(S.tg.games()[0].id));
}

main().catch((error) => {
  document.body.setAttribute('data-phase', 'error');
  $('tagline').textContent = t('page.load-failed', error.message);
  throw error;
});
