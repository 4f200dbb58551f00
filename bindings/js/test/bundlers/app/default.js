// load() with no argument: the package's own `new URL('./traditional-games.wasm',
// import.meta.url)`, which webpack turns into an emitted asset.
import { load } from 'traditional-games';
import { playAll, report } from './play.js';

report(async () => playAll(await load()));
