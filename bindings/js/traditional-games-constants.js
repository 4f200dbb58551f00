// The constants of the library's header (include/traditional-games.h), value for value;
// traditional-games.js re-exports them.

export const MOVE_PASS = 0xfffffffe;
export const PLAYER_0 = 0;
export const PLAYER_1 = 1;
export const CHANCE = -1;
export const TERMINAL = -2;
export const DRAW = -3;
export const NO_WINNER_YET = -4;
export const CELL_LOCKED = 1;
export const CELL_DEAD = 2;

export const Status = Object.freeze({
  TG_OK: 0,
  TG_ERR_INVALID_ARGUMENT: 1,
  TG_ERR_NO_MEMORY: 2,
  TG_ERR_UNKNOWN_GAME: 3,
  TG_ERR_BAD_OPTION: 4,
  TG_ERR_ILLEGAL_MOVE: 5,
  TG_ERR_PARSE: 6,
  TG_ERR_BUFFER_TOO_SMALL: 7,
  TG_ERR_NO_HISTORY: 8,
  TG_ERR_GAME_OVER: 9,
  TG_ERR_RULES_MISMATCH: 10,
  TG_ERR_BUSY: 11,
});
