// Compiled (never run) by types.test.js: what a TypeScript user writes must type-check, and
// what is wrong must not (each @ts-expect-error fails the compile if its line has no error).
import {
  load, Rng, TGError, IllegalMove, Status, MOVE_PASS, CHANCE,
  TERMINAL, DRAW, EventKind,
  type StoryEvent, type EndReasonName, type EventKindName,
  type Move, type State, type Rules, type TraditionalGames, type GameInfo, type Player,
  type Turn, type Winner, type Decider, type WasmMemory,
} from '../../traditional-games.js';
import { SearchWorker } from '../../traditional-games-search.js';

async function main(): Promise<void> {
  const tg: TraditionalGames = await load();
  const fromBytes: TraditionalGames = await load(new Uint8Array(8));
  const fromUrl: TraditionalGames = await load(new URL('https://example.invalid/tg.wasm'));
  void fromBytes;
  void fromUrl;

  const games: GameInfo[] = tg.games();
  const firstOption: string | undefined = games[0]?.options[0]?.key;
  void firstOption;
  const rules: Rules = new tg.Rules('halusa');
  const spec: string = rules.spec;
  const state: State = new tg.State(rules);
  const alsoState: State = tg.State.fromString(spec, state.toString());
  const moves: Move[] = state.legalMoves();
  const names: string[] = state.legalMoveNames();
  const played: Move = state.apply(names[0] ?? 'a1');
  state.apply(moves[0] ?? 0);
  const rng = new Rng(7n);
  const seedState: bigint = rng.state;
  const plies: number = state.playout(rng, 100);
  const hash: bigint = state.hash;
  const leaves: bigint = state.perft(2);
  const choice: Move = state.botChoose('mcts:iterations=200', rng);
  const outcomes: { move: Move; probability: number }[] = state.chanceOutcomes();
  const scores: [number, number] = state.scores;
  // turn, player and winner are the header's values, as literal unions.
  const mine: number = state.score(state.turn);
  const turn: Turn = state.turn;
  const decider: Decider = state.player;
  const winner: Winner = state.winner;
  if (turn !== TERMINAL) {
    const player: Player = turn;
    void player;
  }
  const drawn: boolean = winner === DRAW;
  const position: string = JSON.parse(JSON.stringify(state)) as string;
  const memory: WasmMemory = tg.memory;
  const bytes: number = memory.buffer.byteLength + tg.liveStates;
  const warned: TraditionalGames = await load(undefined, { liveStatesWarning: 10 });
  void [mine, decider, drawn, position, bytes, warned];
  // Stories, end reasons and records.
  const events: StoryEvent[] = state.story(0);
  const kind: EventKindName | undefined = events[0]?.kind;
  const where: number | undefined = events[0]?.cell?.row;
  const reason: EndReasonName = state.endReason;
  const record: string = state.toRecord({ White: 'Ann', Black: 'Bo' });
  const again: string = state.toRecord([['Event', 'club']]);
  const replayed: State = tg.State.fromRecord(record);
  const liftCode: 1 = EventKind.lift;
  void [kind, where, reason, again, replayed, liftCode];
  // @ts-expect-error end reasons are tokens, not numbers
  const badReason: number = state.endReason;
  // @ts-expect-error tag values are strings
  state.toRecord({ Round: 3 });
  void badReason;
  // Analysis, here and in a Worker with an AbortSignal.
  const best: number = state.analyse('search:nodes=1000', rng)[0]?.value ?? 0;
  const worker = new SearchWorker();
  const analysed = await worker.analyse(state, 'search:time=100', rng, { signal: AbortSignal.timeout(50) });
  const chosen: Move = await worker.choose(state, 'search:nodes=100', 1n);
  worker.terminate();
  void [best, analysed, chosen];
  const isChance: boolean = state.player === CHANCE;
  const cell: string = state.cellName(0, 0);
  const pass: number = MOVE_PASS;
  const parse: number = Status.TG_ERR_PARSE;
  void [played, seedState, plies, hash, leaves, choice, outcomes, scores, isChance, cell, pass, parse];
  {
    using scratch = state.clone();
    scratch.copyFrom(alsoState);
  }
  try {
    state.apply('z9');
  } catch (e) {
    if (e instanceof IllegalMove || e instanceof TGError) {
      const code: string = e.code;
      const status: number = e.status;
      void [code, status];
    }
  }

  // @ts-expect-error a move is a number or a string
  state.apply({ from: 1 });
  // @ts-expect-error 64-bit values are BigInts
  const wrongHash: number = state.hash;
  // @ts-expect-error a player is 0 or 1
  state.score(2);
  // @ts-expect-error turn may be TERMINAL
  const notPlayer: Player = state.turn;
  // @ts-expect-error winner is no turn
  state.score(state.winner);
  // @ts-expect-error liveStates is read-only
  tg.liveStates = 0;
  // @ts-expect-error legalMoves() is a method
  const notMoves: Move[] = state.legalMoves;
  // @ts-expect-error Rng seeds are integers
  new Rng('7');
  // @ts-expect-error games are read-only
  games[0].id = 'chess';
  void [wrongHash, notMoves, notPlayer];
  state.free();
  alsoState[Symbol.dispose]();
  rules.free();
}
void main;
