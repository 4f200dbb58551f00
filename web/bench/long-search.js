// The position where a bot's search is long enough to tell where it ran: At-Tab wa-d-Dukk on
// its widest board, early on, so that the playouts are long. The browser test (the search
// runs in the worker) and the benchmark (how long the page's longest task is meanwhile)
// both use it.
export const LONG_SEARCH = {
  spec: 'tab:width=29',
  bot: 'mcts:iterations=5000',
  position: 'tab:width=29 .,.,.,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O,O/.,.,.,.,.,.,.,.,.,o,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,o/.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,.,x,.,.,./X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,X,.,. 1 1,1 throws=1,3',
};
