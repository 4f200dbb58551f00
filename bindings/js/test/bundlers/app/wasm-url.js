// The module imported as a URL: esbuild's `file` loader copies it beside the bundle.
import { load } from 'traditional-games';
import wasmUrl from 'traditional-games/traditional-games.wasm';
import { playAll, report } from './play.js';

report(async () => playAll(await load(new URL(wasmUrl, import.meta.url))));
