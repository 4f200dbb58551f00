// Player and match pages (docs/web.md, "Player and match pages"): what tg-server stores of a
// player's ratings and games and of a finished match, read from GET players/NAME.json and
// matches/ID.json (docs/server.md, "History") and shown in the History panel: the rating per
// game and clock category with its graph (an inline SVG drawn from the points), the recent
// games, each replayable on the board (its record, matches/ID.tgr, opened in replay mode) and
// downloadable, and a match's players, result and how it ended. Nothing here is worked out
// from the rules: the server says who won and how, the library replays the record.
import { t, say } from './i18n.js';
import { $, S } from './session.js';
import { openRecordText, viewPly } from './controller.js';
import { setListedTurns } from './title.js';

let shown = null; // { kind: 'player', name, page, data } or { kind: 'match', id, data }

async function getJson(path) {
  try {
    const response = await fetch(path, { credentials: 'same-origin' });
    if (response.status === 404) return { missing: true };
    if (!response.ok) return { failed: response.status };
    return { data: await response.json() };
  } catch {
    return { failed: 'no-server' };
  }
}

function button(text, onClick, data = {}) {
  const node = Object.assign(document.createElement('button'), { type: 'button', textContent: text });
  Object.assign(node.dataset, data);
  node.addEventListener('click', onClick);
  return node;
}

function element(tag, text = '', data = {}) {
  const node = Object.assign(document.createElement(tag), { textContent: text });
  Object.assign(node.dataset, data);
  return node;
}

const gameName = (id) => t(`game.${id}`);
const category = (name) => t(`lobby.${name}`);
const when = (ms) => (ms === null ? '' : new Date(ms).toLocaleDateString(document.documentElement.lang));
const ratingText = (rating, provisional = false) => `${Math.round(rating)}${provisional ? '?' : ''}`;

// A name that is a way to that player's page; a guest's or deleted account's seat is words.
function playerName(name, deleted = false) {
  if (name === null) return element('span', t(deleted ? 'history.deleted' : 'history.guest'));
  return button(name, () => openPlayerPage(name), { player: name });
}

function downloadLink(id) {
  const link = element('a', t('history.download'), { record: String(id) });
  link.href = `matches/${id}.tgr`;
  link.download = `match-${id}.tgr`;
  return link;
}

// The graph of one rating: its points in order, the rating on the vertical axis between the
// lowest and the highest (with a margin), one mark per game, each with its value as a title.
const GRAPH = { width: 280, height: 96, margin: 6 };

function ratingGraph(points, fromStart, label) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${GRAPH.width} ${GRAPH.height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.classList.add('rating-graph');
  // From the starting rating when every rated game has its point (not when the oldest were
  // rated before the server kept points, or are past the latest 300).
  const values = [...(fromStart ? [1500] : []), ...points.map((p) => p.rating)];
  const offset = fromStart ? 1 : 0;
  const low = Math.min(...values) - 20;
  const high = Math.max(...values) + 20;
  const x = (i) => GRAPH.margin + (i * (GRAPH.width - 2 * GRAPH.margin)) / Math.max(1, values.length - 1);
  const y = (v) => GRAPH.margin + ((high - v) * (GRAPH.height - 2 * GRAPH.margin)) / (high - low);
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute('points', values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '));
  svg.append(line);
  values.forEach((v, i) => {
    const dot = document.createElementNS(ns, 'circle');
    dot.setAttribute('cx', x(i).toFixed(1));
    dot.setAttribute('cy', y(v).toFixed(1));
    dot.setAttribute('r', '2.5');
    const title = document.createElementNS(ns, 'title');
    title.textContent = i >= offset ? t('history.point', ratingText(v), when(points[i - offset].at)) : t('history.start', ratingText(v));
    dot.append(title);
    svg.append(dot);
  });
  return svg;
}

function renderRatings(data, into) {
  into.append(element('h3', t('history.ratings')));
  if (!data.ratings.length) {
    into.append(element('p', t('history.no-ratings'), { empty: 'ratings' }));
    return;
  }
  const list = element('ul', '', { list: 'ratings' });
  for (const r of data.ratings) {
    const li = element('li', '', { rating: `${r.game}/${r.category}`, value: r.rating.toFixed(2) });
    li.append(element('span', t('history.rating-line', gameName(r.game), category(r.category), ratingText(r.rating, r.provisional), r.games)));
    const points = data.points.filter((p) => p.game === r.game && p.category === r.category);
    if (points.length) {
      const fromStart = points.length === r.games;
      const first = fromStart ? 1500 : points[0].rating;
      li.append(ratingGraph(points, fromStart, t('history.graph-label', gameName(r.game), category(r.category), ratingText(first), ratingText(points.at(-1).rating))));
    }
    list.append(li);
  }
  into.append(list);
}

function gameLine(g) {
  const li = element('li', '', { match: String(g.match), outcome: g.outcome });
  li.append(`${when(g.ended_at ?? g.created_at)} `);
  li.append(element('span', `${t(`history.outcome.${g.outcome}`)} `));
  li.append(`${t('history.against')} `);
  li.append(playerName(g.opponent, g.opponent_deleted));
  const game = g.spec.split(':')[0];
  const kind = g.rated ? t('history.rated-game', category(g.category)) : t('lobby.casual');
  li.append(` ${t('history.game-line', gameName(game), t(`history.by.${g.by}`), kind)} `);
  li.append(button(t('history.replay'), () => replayMatch(g.match), { replay: String(g.match) }), ' ');
  li.append(button(t('history.match'), () => openMatchPage(g.match), { matchPage: String(g.match) }), ' ');
  li.append(downloadLink(g.match));
  return li;
}

// A correspondence match being played: whose turn, against whom, the days per move and the
// deadline of the seat to move, and the way to its match page.
function correspondenceLine(c) {
  const li = element('li', '', { match: String(c.match), yourTurn: String(c.your_turn) });
  if (c.your_turn) li.append(element('strong', `${t('history.your-turn')} `));
  else li.append(element('span', `${t('history.their-turn')} `));
  li.append(`${t('history.against')} `);
  li.append(playerName(c.opponent));
  li.append(` ${t('history.correspondence-line', gameName(c.spec.split(':')[0]), c.days)}`);
  if (c.deadline !== null) {
    const deadline = new Date(c.deadline).toLocaleString(document.documentElement.lang);
    li.append(` ${t('history.deadline', deadline)}`);
  }
  li.append(' ', button(t('history.match'), () => openMatchPage(c.match), { matchPage: String(c.match) }));
  return li;
}

// The player's own page says in the tab's title how many wait for their move; also once the
// page knows who is signed in (a link to the page may open it first).
function renderListedTurns() {
  const data = shown?.kind === 'player' ? shown.data : null;
  const account = document.body.dataset.account ?? '';
  const own = data !== null && account !== '' && account.toLowerCase() === data.name.toLowerCase();
  setListedTurns(own ? (data.correspondence ?? []).filter((c) => c.your_turn).length : 0);
}

function renderCorrespondence(data, into) {
  const matches = data.correspondence ?? [];
  renderListedTurns();
  if (!matches.length) return;
  into.append(element('h3', t('history.correspondence')));
  const list = element('ul', '', { list: 'correspondence' });
  for (const c of matches) list.append(correspondenceLine(c));
  into.append(list);
}

function renderPlayer() {
  const { name, page, data } = shown;
  const into = $('history-view');
  into.replaceChildren();
  into.dataset.view = 'player';
  into.dataset.player = data.name;
  into.append(element('h2', t('history.player-heading', data.name)));
  renderCorrespondence(data, into);
  renderRatings(data, into);
  into.append(element('h3', t('history.games')));
  if (!data.games.length) into.append(element('p', t('history.no-games'), { empty: 'games' }));
  const list = element('ul', '', { list: 'games' });
  for (const g of data.games) list.append(gameLine(g));
  into.append(list);
  const pager = element('p');
  if (page > 0) pager.append(button(t('history.newer'), () => openPlayerPage(name, page - 1)), ' ');
  if (data.more) pager.append(button(t('history.older'), () => openPlayerPage(name, page + 1)));
  into.append(pager);
}

function resultWords(m) {
  if (m.result === 'running') return t('history.running');
  if (m.result === 'aborted') return t('history.aborted');
  if (m.result === 'draw') return t('history.draw');
  const winner = m.players[Number(m.result)];
  return t('history.won-by', winner.name ?? t('history.guest'), t(`history.by.${m.by}`));
}

function renderMatch() {
  const { id, data } = shown;
  const into = $('history-view');
  into.replaceChildren();
  into.dataset.view = 'match';
  into.dataset.match = String(id);
  into.append(element('h2', t('history.match-heading', id)));
  const game = data.spec.split(':')[0];
  into.append(element('p', t('history.match-game', gameName(game), data.rated ? t('history.rated-game', category(data.category)) : t('lobby.casual'), data.plies), { spec: data.spec }));
  const players = element('ul', '', { list: 'players' });
  for (const p of data.players) {
    const li = element('li', `${t(p.seat ? 'new.seat1' : 'new.seat0')}: `, { seat: String(p.seat) });
    li.append(playerName(p.name, p.deleted));
    if (p.rating_after !== undefined) {
      li.append(` ${t('history.rating-change', ratingText(p.rating_before), ratingText(p.rating_after))}`);
      li.dataset.ratingAfter = p.rating_after.toFixed(2);
    }
    players.append(li);
  }
  into.append(players);
  into.append(element('p', resultWords(data), { result: data.result, by: data.by ?? '' }));
  const actions = element('p');
  actions.append(button(t('history.replay'), () => replayMatch(id), { replay: String(id) }), ' ', downloadLink(id));
  into.append(actions);
}

function showFailure(answer, what) {
  $('history-view').replaceChildren();
  $('history-view').dataset.view = 'none';
  say($('history-error'), () => (answer.missing ? t(`history.no-such-${what}`) : t('history.failed', String(answer.failed))));
}

export async function openPlayerPage(name, page = 0) {
  $('history').open = true;
  $('history-error').textContent = '';
  const answer = await getJson(`players/${encodeURIComponent(name)}.json${page ? `?page=${page}` : ''}`);
  if (!answer.data) return showFailure(answer, 'player');
  shown = { kind: 'player', name, page, data: answer.data };
  renderPlayer();
  return undefined;
}

export async function openMatchPage(id) {
  $('history').open = true;
  $('history-error').textContent = '';
  const answer = await getJson(`matches/${encodeURIComponent(id)}.json`);
  if (!answer.data) return showFailure(answer, 'match');
  shown = { kind: 'match', id, data: answer.data };
  renderListedTurns();
  renderMatch();
  return undefined;
}

// The record on the board in replay mode, at its start. A page in an online match keeps its
// match: the replay opens on a page of its own.
export async function replayMatch(id) {
  if (S.online) {
    window.open(`./?replay=${encodeURIComponent(id)}`, '_blank', 'noopener');
    return;
  }
  $('history-error').textContent = '';
  let text;
  try {
    const response = await fetch(`matches/${encodeURIComponent(id)}.tgr`, { credentials: 'same-origin' });
    if (!response.ok) throw new Error(String(response.status));
    text = await response.text();
  } catch (error) {
    say($('history-error'), () => t('history.failed', error.message));
    return;
  }
  if (openRecordText(text, ['person', 'person'])) {
    viewPly(0);
    document.body.dataset.replay = String(id);
  }
}

// Also after a language switch.
export function renderHistory() {
  if (shown?.kind === 'player') renderPlayer();
  else if (shown?.kind === 'match') renderMatch();
}

export function wireHistory(accountName) {
  $('history-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const name = $('history-name').value.trim();
    if (name) openPlayerPage(name);
  });
  $('account-games').addEventListener('click', () => {
    const name = accountName();
    if (name) {
      $('history-name').value = name;
      openPlayerPage(name);
    }
  });
  new MutationObserver(renderListedTurns).observe(document.body, { attributes: true, attributeFilter: ['data-account'] });
  // No tg-server behind the page (the Account panel finds out and hides): no history either.
  new MutationObserver(() => {
    $('history').hidden = $('account').hidden;
  }).observe($('account'), { attributes: true, attributeFilter: ['hidden'] });
}
