// Loading traditional-games: the WebAssembly module compiled from whatever load() was given,
// and the endgame databases' file reads it imports.

import { describe } from './traditional-games-args.js';

const textDecoder = new TextDecoder('utf-8');

// The package's only contact with Node: its built-in modules fetched at run time through
// process.getBuiltinModule (Node 20.16 and later), never imported, so that bundlers for the
// browser find nothing to resolve. Elsewhere it is null and files are fetched.
function nodeBuiltin(name) {
  const getBuiltin = globalThis.process?.getBuiltinModule;
  return typeof getBuiltin === 'function' ? getBuiltin(name) : null;
}

/** A WebAssembly.Module from what load() was given (see load). */
export async function compileModule(source) {
  // Written out in full so that bundlers (webpack, Vite, Parcel; esbuild with a .wasm loader
  // when imported instead) see the asset and emit it beside the bundle.
  if (source === undefined) source = new URL('./traditional-games.wasm', import.meta.url);
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return WebAssembly.compile(source);
  }
  if (typeof Response === 'function' && source instanceof Response) {
    return compileResponse(source, source.url);
  }
  let url;
  if (source instanceof URL) {
    url = source;
  } else if (typeof source === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(source) && !/^[a-z]:[\\/]/i.test(source)) {
      url = new URL(source);
    } else if (nodeBuiltin('node:url')) {
      url = nodeBuiltin('node:url').pathToFileURL(source);
    } else {
      url = new URL(source, globalThis.location?.href);
    }
  } else {
    throw new TypeError(
      `load() takes bytes, a URL, a path, a Response or a WebAssembly.Module, not ${describe(source)}`);
  }
  const fs = url.protocol === 'file:' ? nodeBuiltin('node:fs') : null;
  if (fs) {
    // Node's fetch() does not read files.
    return WebAssembly.compile(await fs.promises.readFile(url));
  }
  return compileResponse(await fetch(url), url.href);
}

async function compileResponse(response, where) {
  if (!response.ok) {
    throw new Error(`traditional-games: cannot fetch ${where}: HTTP ${response.status}`);
  }
  // Not compileStreaming: that insists on the Content-Type application/wasm, which many
  // servers do not send, and the module is small.
  return WebAssembly.compile(await response.arrayBuffer());
}

// The endgame databases' reads (lib/egtb/host.c). A WebAssembly import cannot wait for a file
// or a fetch, so each answers from what the database in use (host.session, set by
// traditional-games-egtb.js around each call into the library) has read already; what it has
// not, the session notes as needed and answers TG_EGTB_IO_ERROR, and its asynchronous caller
// reads what was noted and calls again. Here the bytes are only moved.
const EGTB_IO_ERROR = 7;

/** The imports of module "tg_egtb", and the `session` (a database in use, or null) they
 * answer from. getMemory: the instance's memory, once it exists. */
export function makeEgtbHost(getMemory) {
  const host = { session: null, imports: null };
  const text = (ptr, length) => textDecoder.decode(new Uint8Array(getMemory().buffer, ptr >>> 0, length >>> 0));
  host.imports = {
    dir: (ptr, length) => host.session?.dirStatus(text(ptr, length)) ?? EGTB_IO_ERROR,
    open: (ptr, length) => host.session?.openFile(text(ptr, length)) ?? -EGTB_IO_ERROR,
    close: (file) => {
      host.session?.closeFile(file);
    },
    header_size: (file, offsetPtr) => {
      const answer = host.session?.headerSize(file) ?? EGTB_IO_ERROR;
      if (typeof answer === 'number') return -answer;
      new DataView(getMemory().buffer).setBigUint64(offsetPtr >>> 0, BigInt(answer.frameOffset), true);
      return answer.size;
    },
    header: (file, outPtr, size) => {
      const raw = host.session?.header(file);
      if (!raw || raw.length !== size >>> 0) return EGTB_IO_ERROR;
      new Uint8Array(getMemory().buffer, outPtr >>> 0, raw.length).set(raw);
      return 0;
    },
    block: (file, offset, size, outPtr, want) => {
      const answer = host.session?.block(file, Number(offset), size >>> 0, want >>> 0) ?? EGTB_IO_ERROR;
      if (typeof answer === 'number') return answer;
      new Uint8Array(getMemory().buffer, outPtr >>> 0, answer.length).set(answer);
      return 0;
    },
  };
  return host;
}
