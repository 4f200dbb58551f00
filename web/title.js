// The browser tab's title says when it is the player's turn (docs/web.md, "Correspondence"):
// a correspondence game is left open in a tab for days, among others, and the tab strip is where
// a player looks. Two sources: this page's own seat in a live match, and the correspondence
// matches the player's own page lists as "your turn". The words are the catalogue's, again
// after a language switch (i18n.js asks for the title through titleText).
import { t, setTitleSource } from './i18n.js';

let liveGame = null; // the game's name when this page's seat is to decide online, else null
let listedTurns = 0; // the player's own correspondence matches where it is their turn

function titleText() {
  if (liveGame) return t('page.your-turn', liveGame);
  if (listedTurns) return t('page.your-turns', listedTurns);
  return t('page.title');
}

function renderTitle() {
  document.title = titleText();
}

/** This page's seat is to decide in a live match of `game` (its name), or not (null). */
export function setLiveTurn(game) {
  if (game === liveGame) return;
  liveGame = game;
  renderTitle();
}

/** How many of the signed-in player's correspondence matches wait for their move. */
export function setListedTurns(count) {
  if (count === listedTurns) return;
  listedTurns = count;
  renderTitle();
}

setTitleSource(titleText);
