// Searches in a Worker, so that a long one never blocks the caller's thread and can be
// aborted with an AbortSignal:
//
//   import { SearchWorker } from 'traditional-games/search';
//   const worker = new SearchWorker();
//   const moves = await worker.analyse(state, 'search:time=2000', rng, { signal });
//   const move = await worker.choose(state, 'search:nodes=100000', rng);
//   worker.terminate();
//
// The Worker (traditional-games-search-worker.js) loads its own instance of the library and
// plays from the state's position string. An abort rejects the request at once with the
// signal's reason (an AbortError); the search itself is stopped through a SharedArrayBuffer
// flag that the library reads with its clock, or, where SharedArrayBuffer is not available (a
// page that is not cross-origin isolated), by terminating the Worker, which is started again
// for the next request. Requests run one at a time, in order. Node (worker_threads) and
// browsers (module Workers) alike; nothing here imports a Node module.
import { Rng, TGError, errorClassOf } from './traditional-games.js';

const workerUrl = new URL('./traditional-games-search-worker.js', import.meta.url);

// One Worker, as Node's worker_threads or as a browser's module Worker.
function spawn(onMessage, onError) {
  const threads = globalThis.process?.getBuiltinModule?.('node:worker_threads') ?? null;
  if (threads) {
    const worker = new threads.Worker(workerUrl);
    worker.on('message', onMessage);
    worker.on('error', onError);
    // Held only while a request runs: an idle SearchWorker does not keep Node running.
    worker.unref();
    return {
      post: (m) => worker.postMessage(m),
      terminate: () => worker.terminate(),
      busy: (yes) => (yes ? worker.ref() : worker.unref()),
    };
  }
  const worker = new Worker(workerUrl, { type: 'module' });
  worker.addEventListener('message', (event) => onMessage(event.data));
  worker.addEventListener('error', (event) => onError(event.error ?? new Error(event.message)));
  return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate(), busy: () => {} };
}

function abortError(signal) {
  return signal?.reason ?? new DOMException('The search was aborted', 'AbortError');
}

export class SearchWorker {
  #options;
  #worker = null;
  #flag = null; // Int32Array over a SharedArrayBuffer, or null
  #nextId = 1;
  #queue = [];
  #running = null; // { id, request, resolve, reject, rng, settled }
  #terminated = false;

  /**
   * @param {object} [options] wasm: what the Worker's load() gets (default: the .wasm beside
   *   the package; a WebAssembly.Module, bytes or a URL string can be passed to a Worker).
   */
  constructor(options = {}) {
    this.#options = { wasm: options.wasm };
  }

  #ensure() {
    if (this.#worker) return;
    this.#flag = typeof SharedArrayBuffer === 'function'
      ? new Int32Array(new SharedArrayBuffer(4)) : null;
    this.#worker = spawn((m) => this.#reply(m), (e) => this.#failed(e));
    this.#worker.post({ op: 'start', wasm: this.#options.wasm, flag: this.#flag?.buffer ?? null });
  }

  /** The analysis of every legal move (as state.analyse(spec, rng)), run in the Worker. */
  analyse(state, spec, rng, options = {}) {
    return this.#request('analyse', state, spec, rng, options);
  }

  /** The move a bot chooses (as state.botChoose(spec, rng)), run in the Worker. */
  choose(state, spec, rng, options = {}) {
    return this.#request('choose', state, spec, rng, options);
  }

  /** Stop the Worker; pending requests are rejected. */
  terminate() {
    this.#terminated = true;
    this.#worker?.terminate();
    this.#worker = null;
    const error = new Error('the SearchWorker was terminated');
    if (this.#running && !this.#running.settled) this.#running.reject(error);
    this.#running = null;
    for (const job of this.#queue.splice(0)) job.reject(error);
  }

  #request(op, state, spec, rng, { signal } = {}) {
    if (this.#terminated) return Promise.reject(new Error('the SearchWorker was terminated'));
    if (typeof spec !== 'string') return Promise.reject(new TypeError('a bot spec must be a string'));
    const generator = rng instanceof Rng ? rng : new Rng(rng);
    // Read now: the caller may change or free the state while the search runs.
    const request = { op, spec: state.spec, position: state.toString(), bot: spec, rng: generator.state.toString() };
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortError(signal));
        return;
      }
      const job = { id: this.#nextId++, request, resolve, reject, rng: generator, settled: false, signal };
      const onAbort = () => this.#abort(job);
      job.cleanup = () => signal?.removeEventListener('abort', onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  #pump() {
    if (this.#running) return;
    if (this.#queue.length === 0) {
      this.#worker?.busy(false);
      return;
    }
    this.#ensure();
    const job = this.#queue.shift();
    this.#running = job;
    this.#worker.busy(true);
    this.#worker.post({ id: job.id, ...job.request });
  }

  #settle(job, fn) {
    if (job.settled) return;
    job.settled = true;
    job.cleanup();
    fn();
  }

  #abort(job) {
    this.#settle(job, () => job.reject(abortError(job.signal)));
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
    } else if (this.#running === job) {
      if (this.#flag) {
        // The search sees it at its next clock read and answers; the Worker stays.
        Atomics.store(this.#flag, 0, job.id);
      } else {
        this.#worker.terminate();
        this.#worker = null;
        this.#running = null;
        this.#pump();
      }
    }
  }

  #reply(message) {
    const job = this.#running;
    if (!job || job.id !== message.id) return;
    this.#running = null;
    this.#settle(job, () => {
      if (message.error) {
        const { name, message: text, status } = message.error;
        const ErrorClass = status !== undefined ? errorClassOf(status) : null;
        const error = ErrorClass ? new ErrorClass(status, '', text) : Object.assign(new Error(text), { name });
        if (error instanceof TGError) error.message = text;
        job.reject(error);
      } else {
        job.rng.state = BigInt(message.rng);
        job.resolve(message.result);
      }
    });
    this.#pump();
  }

  #failed(error) {
    const job = this.#running;
    this.#worker?.terminate();
    this.#worker = null;
    this.#running = null;
    if (job) this.#settle(job, () => job.reject(error));
    this.#pump();
  }
}
