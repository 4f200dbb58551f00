// The module's bytes inlined into the bundle: esbuild's `binary` loader.
import { load } from 'traditional-games';
import wasmBytes from 'traditional-games/traditional-games.wasm';
import { playAll, report } from './play.js';

report(async () => playAll(await load(wasmBytes)));
