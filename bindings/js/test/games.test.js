// Every game under every option set of the catalogue, played to the end through the bindings,
// checked at every ply: legality, notation round trips, the board queries, clone, and undo back
// to the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng, CHANCE, TERMINAL, IllegalMove, GameOver, NoHistory, MOVE_PASS } from '../traditional-games.js';
import { tg, RULE_SETS } from './helpers.js';

function checkPly(state, rules, context) {
  const text = state.toString();
  // A position string read back is the same position, with the same hash.
  const reread = tg.State.fromString(rules, text);
  assert.ok(reread.equals(state), `${context}: fromString(toString()) differs`);
  assert.equal(reread.toString(), text, context);
  assert.equal(reread.hash, state.hash, context);
  reread.free();

  // A clone is equal, and independent: playing on it leaves the original as it was.
  const clone = state.clone();
  assert.ok(clone.equals(state), context);
  assert.deepEqual(clone.history, state.history, context);
  assert.equal(clone.ply, state.ply, context);

  const player = state.player;
  const moves = state.legalMoves();
  const outcomes = state.chanceOutcomes();
  if (player === TERMINAL) {
    assert.ok(state.isTerminal && moves.length === 0 && outcomes.length === 0, context);
    assert.throws(() => state.apply(0), GameOver, context);
  } else if (player === CHANCE) {
    assert.equal(moves.length, 0, context);
    assert.ok(outcomes.length > 0, context);
    const total = outcomes.reduce((sum, o) => sum + o.probability, 0);
    assert.ok(Math.abs(total - 1) < 1e-9, `${context}: probabilities sum to ${total}`);
    for (const o of outcomes) {
      assert.ok(state.isLegal(o.move), context);
      assert.equal(state.moveFromString(state.moveToString(o.move)), o.move, context);
    }
  } else {
    assert.ok(moves.length > 0, context);
    for (let i = 0; i < moves.length; i++) {
      const m = moves[i];
      assert.ok(Number.isInteger(m) && m >= 0 && m <= 0xffffffff, `${context}: move ${m}`);
      if (i > 0) assert.ok(m > moves[i - 1], `${context}: moves ascending and unique`);
      assert.ok(state.isLegal(m), context);
      const name = state.moveToString(m);
      assert.equal(state.moveFromString(name), m, `${context}: ${name}`);
      assert.ok(state.isLegal(name), context);
    }
    assert.deepEqual(state.legalMoveNames(), moves.map((m) => state.moveToString(m)), context);
    // A number that is not a legal move now is refused, and changes nothing.
    const illegal = moves.includes(MOVE_PASS) ? 0xfffffff0 : MOVE_PASS;
    assert.equal(state.isLegal(illegal), false, context);
    assert.throws(() => state.apply(illegal), IllegalMove, context);
    assert.equal(state.toString(), text, context);
  }

  // The board as the queries see it: every cell in range, and the rows agree with count().
  const board = state.board;
  assert.equal(board.length, state.rows, context);
  for (let r = 0; r < state.rows; r++) {
    for (let c = 0; c < state.cols; c++) {
      assert.equal(board[r][c], state.count(r, c), context);
      assert.ok(board[r][c] >= 0, context);
      assert.ok([0, 1, -1].includes(state.owner(r, c)), context);
      assert.equal(state.flags(r, c) & ~3, 0, context);
    }
  }

  if (!state.isTerminal) {
    clone.applyRandom(new Rng(BigInt(state.ply) + 99n));
    assert.equal(state.toString(), text, `${context}: playing on a clone changed the original`);
  }
  clone.free();
  return text;
}

// Cell names as the bindings spell them are the library's own: a mancala move is the hole's
// number and is written as its cell name; a Tab decision starts with the name of its cell.
function checkCellNames(state, context) {
  for (const m of state.legalMoves()) {
    const name = state.moveToString(m);
    if (state.gameId === 'tab') {
      const cell = m & 0xff;
      const prefix = state.cellName(Math.floor(cell / state.cols), cell % state.cols);
      assert.ok(name.startsWith(`${prefix}+`), `${context}: ${name} is not on ${prefix}`);
    } else if (m !== MOVE_PASS) {
      assert.equal(state.cellName(Math.floor(m / state.cols), m % state.cols), name, context);
    }
  }
}

for (const spec of RULE_SETS) {
  test(`${spec}: seeded games to the end, checked at every ply`, () => {
    const rules = new tg.Rules(spec);
    assert.equal(rules.spec, spec);
    for (const seed of [11n, 12n]) {
      const state = rules.newState();
      const rng = new Rng(seed);
      const texts = [];
      const hashes = [];
      while (true) {
        const context = `${spec} seed ${seed} ply ${state.ply}`;
        texts.push(checkPly(state, rules, context));
        hashes.push(state.hash);
        checkCellNames(state, context);
        if (state.isTerminal) break;
        state.applyRandom(rng);
      }
      assert.ok(state.winner === 0 || state.winner === 1 || state.winner === -3);
      assert.deepEqual(state.returns.map(Math.abs).reduce((a, b) => a + b), state.winner === -3 ? 0 : 2);
      const plies = state.ply;
      assert.equal(state.history.length, plies);

      // Replaying the history on a new state reaches the same position.
      const replay = rules.newState();
      for (const m of state.history) replay.apply(m);
      assert.ok(replay.equals(state));
      replay.free();

      // Undo, back to the start, through exactly the positions that were played.
      for (let k = plies; k > 0; k--) {
        state.undo();
        assert.equal(state.toString(), texts[k - 1], `${spec} seed ${seed}: undo to ply ${k - 1}`);
        assert.equal(state.hash, hashes[k - 1]);
        assert.equal(state.ply, k - 1);
      }
      assert.throws(() => state.undo(), NoHistory);
      state.free();
    }
    rules.free();
  });
}
