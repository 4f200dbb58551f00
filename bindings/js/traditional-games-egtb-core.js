// The endgame databases' reader (docs/egtb.md, "JavaScript") without its two dependencies:
// traditional-games-egtb.js (the package's `traditional-games/egtb`) imports them from npm by
// name and hands them over; a page that cannot map bare names (the web board, served under a
// Content-Security-Policy that refuses inline import maps) imports this file and its own
// copies of them (web/egtb.js). See traditional-games-egtb.js for the API and how it works.

// fzstd's decompress and xxhash-wasm's factory, set once by useDependencies().
let decompress = null;
let xxhash = null;

/** Gives the reader its zstd decompressor (fzstd's `decompress`) and its XXH64 (xxhash-wasm's
 * default export). Called by the module that imports them, before any Egtb.open. */
export function useDependencies(dependencies) {
  ({ decompress, xxhash } = dependencies);
}

/** tg_egtb_status, value for value as in tg-egtb.h (the Python package's EgtbStatus). */
export const EgtbStatus = Object.freeze({
  OK: 0,
  BAD_ARGUMENT: 1,
  UNSUPPORTED: 2,
  NOT_IN_DATABASE: 3,
  MISSING_FILE: 4,
  DAMAGED: 5,
  WRONG_RULES: 6,
  IO_ERROR: 7,
  NO_MEMORY: 8,
});

const statusNames = Object.fromEntries(Object.entries(EgtbStatus).map(([k, v]) => [v, k]));

/** A database call failed: .status is the EgtbStatus value, .code its name, .description the
 * library's text for it ("database file damaged"). */
export class EgtbError extends Error {
  constructor(status, description, context) {
    const code = statusNames[status] ?? `EGTB_STATUS_${status}`;
    super(`${code}: ${description} (${context})`);
    this.name = 'EgtbError';
    this.status = status;
    this.code = code;
    this.description = description;
  }
}

/** The exact value of a position (or of a move) for the player to move (tg_egtb_value). */
export class ExactValue {
  /** @param {{ outcome: number, endless: boolean, marginToGo: number, finalMargin: number }} v */
  constructor({ outcome, endless, marginToGo, finalMargin }) {
    /** 1 a win, 0 a draw, -1 a loss. */
    this.outcome = outcome;
    /** An endless move one side is forced into decides the game (the margins are then 0). */
    this.endless = endless;
    /** Counters the player gains over the opponent from here to the end. */
    this.marginToGo = marginToGo;
    /** The player's final score minus the opponent's: banked difference plus marginToGo. */
    this.finalMargin = finalMargin;
    Object.freeze(this);
  }

  /** In English, as the Python package says it: "win by 4, exact", "draw, exact", "loss by
   * an endless move, exact". (The web board has its own catalogues for other languages.) */
  describe() {
    const word = { 1: 'win', 0: 'draw', [-1]: 'loss' }[this.outcome];
    if (this.endless) return `${word} by an endless move, exact`;
    if (this.outcome === 0) return 'draw, exact';
    return `${word} by ${Math.abs(this.finalMargin)}, exact`;
  }
}

// The file layout (docs/egtb.md, "Files"): magic, blocks, header frame, trailer.
const FILE_MAGIC = 'TG-EGTB\n';
const TRAILER_MAGIC = 'EGTB';
const TRAILER_BYTES = 16;
const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_CHECKSUM_FLAG = 0x04; // Frame_Header_Descriptor bit 2: Content_Checksum_flag
// Decompressed blocks kept by a database between calls (64 KiB each): a call keeps every
// block it read until it returns, so this only bounds what stays after.
const CACHED_BLOCKS = 64;

const latin1 = new TextDecoder('latin1');

let hasher = null;
async function xxh64() {
  if (xxhash === null || decompress === null) {
    throw new Error('traditional-games: import traditional-games/egtb (the reader\'s dependencies were not given)');
  }
  hasher ??= xxhash();
  return (await hasher).h64Raw;
}

/**
 * One zstd frame decompressed and checked: its magic, the checksum flag (a frame without it is
 * not one the library wrote), `expected` bytes out (or any number if null) and the low 32 bits
 * of the XXH64 of what came out, which zstd stores in the frame's last four bytes. Null if any
 * check fails.
 */
function decodeFrame(frame, expected, h64) {
  if (frame.length < 9) return null;
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (view.getUint32(0, true) !== ZSTD_MAGIC || !(frame[4] & ZSTD_CHECKSUM_FLAG)) return null;
  let out;
  try {
    out = decompress(frame);
  } catch {
    return null;
  }
  if (expected !== null && out.length !== expected) return null;
  const stored = view.getUint32(frame.length - 4, true);
  return Number(h64(out, 0n) & 0xffffffffn) === stored ? out : null;
}

/** A read that failed, with the status it stands for. */
class ReadFailure extends Error {
  constructor(status) {
    super(statusNames[status]);
    this.status = status;
  }
}

function nodeBuiltin(name) {
  const getBuiltin = globalThis.process?.getBuiltinModule;
  return typeof getBuiltin === 'function' ? getBuiltin(name) : null;
}

// Files on a disk, read by Node at an offset.
class DiskFiles {
  constructor(fs) {
    this.fs = fs.promises;
  }

  async dirStatus(dir) {
    try {
      return (await this.fs.stat(dir)).isDirectory() ? EgtbStatus.OK : EgtbStatus.IO_ERROR;
    } catch {
      return EgtbStatus.IO_ERROR;
    }
  }

  async tail(path, length) {
    let size;
    try {
      size = (await this.fs.stat(path)).size;
    } catch (e) {
      throw new ReadFailure(e.code === 'ENOENT' ? EgtbStatus.MISSING_FILE : EgtbStatus.IO_ERROR);
    }
    if (size < length) throw new ReadFailure(EgtbStatus.DAMAGED);
    return { size, bytes: await this.read(path, size - length, length) };
  }

  async read(path, offset, length) {
    let handle;
    try {
      handle = await this.fs.open(path, 'r');
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(out, done, length - done, offset + done);
        if (bytesRead === 0) throw new ReadFailure(EgtbStatus.DAMAGED); // shorter than it says
        done += bytesRead;
      }
      return out;
    } catch (e) {
      if (e instanceof ReadFailure) throw e;
      throw new ReadFailure(e.code === 'ENOENT' ? EgtbStatus.MISSING_FILE : EgtbStatus.IO_ERROR);
    } finally {
      await handle?.close();
    }
  }
}

// Files behind a URL, fetched by byte range. A directory cannot be listed over HTTP, so it is
// taken as present: a wrong URL gives missing files, hence a database answering nothing.
class HttpFiles {
  async dirStatus() {
    return EgtbStatus.OK;
  }

  async #fetch(url, init) {
    let response;
    try {
      response = await fetch(url, init);
    } catch {
      throw new ReadFailure(EgtbStatus.IO_ERROR);
    }
    if (response.status === 404 || response.status === 410) throw new ReadFailure(EgtbStatus.MISSING_FILE);
    if (!response.ok) throw new ReadFailure(EgtbStatus.IO_ERROR);
    return response;
  }

  async #body(response) {
    try {
      return new Uint8Array(await response.arrayBuffer());
    } catch {
      throw new ReadFailure(EgtbStatus.IO_ERROR);
    }
  }

  // The last `length` bytes and the file's size, in one suffix range request (the size from
  // its Content-Range), so that opening a file costs no HEAD request.
  async tail(url, length) {
    const response = await this.#fetch(url, { headers: { Range: `bytes=-${length}` } });
    let body = await this.#body(response);
    let size = body.length;
    if (response.status === 206) {
      const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
      if (!total) throw new ReadFailure(EgtbStatus.IO_ERROR);
      size = Number(total[1]);
    } else {
      body = body.subarray(Math.max(0, size - length));
    }
    if (body.length !== length) throw new ReadFailure(EgtbStatus.DAMAGED);
    return { size, bytes: body };
  }

  async read(url, offset, length) {
    const response = await this.#fetch(url, { headers: { Range: `bytes=${offset}-${offset + length - 1}` } });
    let body = await this.#body(response);
    // A server that ignores Range sends the whole file (200).
    if (response.status !== 206) body = body.subarray(offset, offset + length);
    if (body.length !== length) throw new ReadFailure(EgtbStatus.DAMAGED);
    return body;
  }
}

// The directory's name as the library takes it (it appends "/halusa-08.egtb") and how to read it.
function placeOf(directory) {
  let text;
  if (directory instanceof URL) text = directory.href;
  else if (typeof directory === 'string') text = directory;
  else throw new TypeError(`directory must be a path, a URL or a URL string, not ${describe(directory)}`);
  if (text === '') throw new TypeError('directory must not be empty');
  if (text.includes('\0')) throw new TypeError('directory contains a NUL character');
  const fs = nodeBuiltin('node:fs');
  const isUrl = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text);
  if (isUrl && text.startsWith('file:')) {
    if (!fs) throw new TypeError('file: URLs are read in Node only');
    text = nodeBuiltin('node:url').fileURLToPath(text);
  } else if (isUrl || !fs) {
    const url = new URL(text, globalThis.location?.href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`a database URL must be http: or https:, not ${url.protocol}`);
    }
    return { dir: url.href.replace(/\/+$/, ''), files: new HttpFiles() };
  }
  return { dir: text.length > 1 ? text.replace(/\/+$/, '') : text, files: new DiskFiles(fs) };
}

function describe(value) {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

/** The file at `path`, its header checked as the native reader does (file.c): the magic, the
 * trailer, the header frame's place and checksum. Its own fields are checked by the library. */
async function readHeader(files, path, h64) {
  const { size, bytes: trailer } = await files.tail(path, TRAILER_BYTES);
  if (size < FILE_MAGIC.length + TRAILER_BYTES) throw new ReadFailure(EgtbStatus.DAMAGED);
  const magic = await files.read(path, 0, FILE_MAGIC.length);
  const view = new DataView(trailer.buffer, trailer.byteOffset, TRAILER_BYTES);
  const frameOffset = Number(view.getBigUint64(0, true));
  const frameSize = view.getUint32(8, true);
  if (latin1.decode(magic) !== FILE_MAGIC || latin1.decode(trailer.subarray(12)) !== TRAILER_MAGIC ||
      frameOffset < FILE_MAGIC.length || frameOffset + frameSize + TRAILER_BYTES !== size) {
    throw new ReadFailure(EgtbStatus.DAMAGED);
  }
  const raw = decodeFrame(await files.read(path, frameOffset, frameSize), null, h64);
  if (raw === null) throw new ReadFailure(EgtbStatus.DAMAGED);
  return { status: EgtbStatus.OK, frameOffset, raw };
}

// What the library's reads (lib/egtb/host.c, through traditional-games.js) are answered from
// during one synchronous call into it: the database's files and blocks, plus the blocks and the
// failures of this asynchronous call, and the reads still needed.
class Attempt {
  constructor(read, blocks, failures) {
    this.read = read;   // the database's: Egtb's #read
    this.blocks = blocks;     // key -> values: read during this call, kept until it returns
    this.failures = failures; // key -> status: what failed during this call
    this.needs = [];
  }

  dirStatus() {
    if (this.read.dirStatus !== null) return this.read.dirStatus;
    this.needs.push({ kind: 'dir' });
    return EgtbStatus.IO_ERROR;
  }

  openFile(path) {
    const file = this.read.files.get(path);
    if (file === undefined) {
      this.needs.push({ kind: 'file', path });
      return -EgtbStatus.IO_ERROR;
    }
    if (file.status !== EgtbStatus.OK) return -file.status;
    this.read.handles.push(path);
    return this.read.handles.length - 1;
  }

  closeFile(number) {
    this.read.handles[number] = null;
  }

  #file(number) {
    const path = this.read.handles[number];
    return path == null ? null : this.read.files.get(path);
  }

  headerSize(number) {
    const file = this.#file(number);
    return file ? { size: file.raw.length, frameOffset: file.frameOffset } : EgtbStatus.IO_ERROR;
  }

  header(number) {
    return this.#file(number)?.raw ?? null;
  }

  block(number, offset, size, want) {
    const path = this.read.handles[number];
    if (path == null) return EgtbStatus.IO_ERROR;
    const key = `${offset}@${path}`;
    let values = this.blocks.get(key);
    if (values === undefined) {
      values = this.read.blocks.get(key);
      if (values !== undefined) {
        this.read.blocks.delete(key); // least recently used first: to the end
        this.read.blocks.set(key, values);
      }
    }
    if (values !== undefined) return values.length === want ? values : EgtbStatus.DAMAGED;
    const failed = this.failures.get(key);
    if (failed !== undefined) return failed;
    this.needs.push({ kind: 'block', key, path, offset, size, want });
    return EgtbStatus.IO_ERROR;
  }
}

const finalizer = new FinalizationRegistry(({ api, db, reader }) => {
  api.readerFree(reader);
  api.close(db);
});

/**
 * An open directory of database files for one rule set (tg_egtb_open), with one reader: the
 * JavaScript counterpart of the Python package's Egtb. Calls are asynchronous (they may read
 * files); any number may run at once.
 */
export class Egtb {
  #api;
  #db = 0;
  #reader = 0;
  #place;
  #token = {};
  /** The directory (path or URL) as the library reads it. */
  directory;
  /** The canonical spec of the rule set. */
  spec;

  // What has been read, shared by the calls (their Attempts read it): the directory's status,
  // path -> { status, frameOffset, raw }, the library's file numbers -> path, and block key ->
  // values (least recently used first).
  #read = { dirStatus: null, files: new Map(), handles: [], blocks: new Map() };

  constructor(token) {
    if (token !== CONSTRUCT) throw new TypeError('use Egtb.open(tg, directory, rules)');
  }

  /**
   * Opens a directory made by tg-egtb (or Egtb.build in Python) for a rule set.
   * @param tg a loaded library (load())
   * @param directory a directory path (Node) or the URL of a directory the files are served
   *   from (http:, https:; fetched with Range requests)
   * @param rules a Rules of `tg` or a spec string
   * @param options files: the names of the files the directory holds (a directory cannot be
   *   listed over HTTP; a server's list spares a request for each absent counter number): any
   *   other file is then missing without being asked for
   * Throws EgtbError: UNSUPPORTED (no database for these rules), IO_ERROR (a directory Node
   * cannot read). Missing or damaged files are reported by the probes that need them.
   */
  static async open(tg, directory, rules, options = {}) {
    const api = tg?._internal?.egtb;
    if (!api) throw new TypeError(`the first argument must be a loaded library (load()), not ${describe(tg)}`);
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, not ${describe(options)}`);
    }
    const { files = null } = options;
    if (files !== null && !(Array.isArray(files) && files.every((f) => typeof f === 'string'))) {
      throw new TypeError('options.files must be an array of file names');
    }
    if (!api.available) throw new Error('traditional-games: this WebAssembly module has no endgame databases');
    const db = new Egtb(CONSTRUCT);
    db.#api = api;
    db.#place = placeOf(directory);
    db.#listed = files === null ? null : new Set(files);
    db.directory = db.#place.dir;
    const supported = api.supported(rules);
    if (supported !== EgtbStatus.OK) throw db.#error(supported, 'open');
    const h64 = await xxh64();
    db.#h64 = h64;
    const opened = await db.#run(() => {
      const result = api.open(db.#place.dir, rules);
      return { status: result.status, value: result.db };
    }, (ptr) => api.close(ptr));
    if (opened.status !== EgtbStatus.OK) throw db.#error(opened.status, 'open');
    db.#db = opened.value;
    const made = api.readerNew(db.#db);
    if (made.status !== EgtbStatus.OK) {
      api.close(db.#db);
      throw db.#error(made.status, 'open');
    }
    db.#reader = made.reader;
    if (typeof rules === 'string') {
      const made = new tg.Rules(rules);
      db.spec = made.spec;
      made.free();
    } else {
      db.spec = rules.spec;
    }
    finalizer.register(db, { api, db: db.#db, reader: db.#reader }, db.#token);
    return db;
  }

  #h64 = null;
  #listed = null; // Set of the file names the directory holds, if the caller said

  #error(status, context) {
    return new EgtbError(status, this.#api.statusString(status), context);
  }

  #live() {
    if (this.#db === 0) throw new TypeError('this Egtb has been closed');
  }

  /**
   * Runs `call` (synchronous, into the library) until it needs nothing more, reading between
   * tries what it needed. `call` returns { status, value }; `undo(value)` releases what a try
   * that must be made again made. Each try reads at least one thing more, kept until this call
   * returns, so the loop ends.
   */
  async #run(call, undo = null) {
    const blocks = new Map();
    const failures = new Map();
    const host = this.#api.host;
    for (;;) {
      const attempt = new Attempt(this.#read, blocks, failures);
      let result;
      host.session = attempt;
      try {
        result = call();
      } finally {
        host.session = null;
      }
      if (attempt.needs.length === 0) {
        const kept = this.#read.blocks;
        for (const [key, values] of blocks) kept.set(key, values);
        while (kept.size > CACHED_BLOCKS) kept.delete(kept.keys().next().value);
        return result;
      }
      if (undo && result.status === EgtbStatus.OK) undo(result.value);
      await Promise.all(attempt.needs.map((need) => this.#readNeed(need, blocks, failures)));
    }
  }

  async #readNeed(need, blocks, failures) {
    const files = this.#place.files;
    if (need.kind === 'dir') {
      this.#read.dirStatus = await files.dirStatus(this.#place.dir);
    } else if (need.kind === 'file') {
      const name = need.path.slice(need.path.lastIndexOf('/') + 1);
      if (this.#listed !== null && !this.#listed.has(name)) {
        this.#read.files.set(need.path, { status: EgtbStatus.MISSING_FILE, frameOffset: 0, raw: null });
        return;
      }
      try {
        this.#read.files.set(need.path, await readHeader(files, need.path, this.#h64));
      } catch (e) {
        if (!(e instanceof ReadFailure)) throw e;
        this.#read.files.set(need.path, { status: e.status, frameOffset: 0, raw: null });
      }
    } else {
      try {
        const values = decodeFrame(await files.read(need.path, need.offset, need.size), need.want, this.#h64);
        if (values === null) failures.set(need.key, EgtbStatus.DAMAGED);
        else blocks.set(need.key, values);
      } catch (e) {
        if (!(e instanceof ReadFailure)) throw e;
        // A file shorter than its header says is damaged, as natively.
        failures.set(need.key, e.status === EgtbStatus.MISSING_FILE ? EgtbStatus.IO_ERROR : e.status);
      }
    }
  }

  /** The largest number of counters on the board with a sound file (0 if none). */
  maxCounters() {
    this.#live();
    return this.#api.maxCounters(this.#db);
  }

  /**
   * The exact value of `state` for its player to move, or null if the database does not cover
   * it (a finished game, more counters than the largest file). EgtbError for a state of another
   * rule set (WRONG_RULES), a missing file (MISSING_FILE) or a damaged one (DAMAGED).
   */
  async probe(state) {
    this.#live();
    const result = await this.#run(() => {
      this.#live();
      const probed = this.#api.readerProbe(this.#reader, state);
      return { status: probed.status, value: probed.value };
    });
    if (result.status === EgtbStatus.NOT_IN_DATABASE) return null;
    if (result.status !== EgtbStatus.OK) throw this.#error(result.status, 'probe');
    return new ExactValue(result.value);
  }

  /**
   * state.analyse(spec, rng) with this database attached (tg_search_set_egtb): the Python
   * package's State.analyse(spec, rng, egtb=db). Each result also has `exact`: its ExactValue
   * where the database gave it (a state the database covers), else null. A database that
   * fails (a missing or damaged file) leaves the search's analysis alone, with a warning, as in
   * Python. rng advances as in the one call that answered.
   */
  async analyse(state, spec, rng) {
    this.#live();
    let used = null;
    const result = await this.#run(() => {
      this.#live();
      used = typeof rng === 'object' && rng !== null && typeof rng.copy === 'function' ? rng.copy() : rng;
      const analysis = this.#api.analyse(state, spec, used, this.#db);
      return { status: analysis.egtbStatus, value: analysis.results };
    });
    if (used !== rng) rng.state = used.state;
    if (result.status !== EgtbStatus.OK) {
      const text = `traditional-games: the endgame database failed (${statusNames[result.status]}: ` +
        `${this.#api.statusString(result.status)}); the analysis is the search's alone`;
      if (typeof globalThis.process?.emitWarning === 'function') globalThis.process.emitWarning(text);
      else console.warn(text);
    }
    return result.value.map((move) => ({ ...move, exact: move.exact ? new ExactValue(move.exact) : null }));
  }

  /** Whether close() has been called. */
  get closed() {
    return this.#db === 0;
  }

  /** Frees the database and its reader; later calls throw. A second close does nothing. */
  close() {
    if (this.#db === 0) return;
    finalizer.unregister(this.#token);
    this.#api.readerFree(this.#reader);
    this.#api.close(this.#db);
    this.#db = 0;
    this.#reader = 0;
    this.#read.blocks.clear();
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.close();
  }
}

const CONSTRUCT = Symbol('Egtb.open');
