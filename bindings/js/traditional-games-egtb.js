// traditional-games/egtb: endgame databases (docs/egtb.md) in Node and in browsers, the
// counterpart of the Python package's Egtb.
//
//   import { load } from 'traditional-games';
//   import { Egtb } from 'traditional-games/egtb';
//   const tg = await load();
//   const db = await Egtb.open(tg, '/var/lib/egtb/halusa', 'halusa:quiet=50');  // or a URL
//   const value = await db.probe(state);   // null where the database does not cover the state
//   if (value) console.log(value.describe());       // "win by 4, exact"
//   db.close();
//
// The library does every look-up (lib/egtb/probe.c and reader.c, compiled into the module);
// traditional-games-egtb-core.js reads the files for it. A WebAssembly import cannot wait for a
// file or a fetch, so each call runs the library's synchronous probe; the reads it needs and
// have not been done yet are noted (lib/egtb/host.c answers TG_EGTB_IO_ERROR for them), done
// asynchronously, and the call made again, until nothing new is needed. Every frame is
// decompressed with fzstd and its XXH64 content checksum checked with xxhash-wasm (fzstd does
// not check it), so a damaged block is TG_EGTB_DAMAGED here as it is natively. Node reads files
// at an offset; browsers (and Node, given an http: URL) fetch the same byte ranges with HTTP
// Range requests. This file only brings the two npm dependencies to the reader.
import { decompress } from 'fzstd';
import xxhash from 'xxhash-wasm';
import { useDependencies } from './traditional-games-egtb-core.js';

useDependencies({ decompress, xxhash });

export { Egtb, EgtbError, EgtbStatus, ExactValue } from './traditional-games-egtb-core.js';
