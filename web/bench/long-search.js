// The position where a bot's search is long enough to tell where it ran: At-Tab wa-d-Dukk on
// its widest board, early on, with a second of search (a player's own spec: the levels have
// fixed budgets, too short to tell). The browser test (the search
// runs in the worker) and the benchmark (how long the page's longest task is meanwhile)
// both use it.
export const LONG_SEARCH = {
  spec: 'tab:width=29',
  bot: 'search:time=1000', // a second of search a move, whatever the machine
  position: 'tab:width=29 .,.,.,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,o,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,o/.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,x,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,.,. 1 1,1 throws=1,3',
};
