/**
 * Run slots: at most `size` runs at once per server, each lent its own uid from a reserved range, handed out fairly
 * between people.
 *
 * Why a uid per run: RLIMIT_NPROC counts the processes of a uid across the whole host, so with one shared uid a
 * chat holding 70 processes made every other chat's scripts fail to fork. A slot's uid is used by one run at a
 * time and is lent again only after that run's sandbox (its PID namespace, so every process in it) is gone.
 *
 * Why fair: one person starting twenty runs must not make everyone else wait behind them. Waiting runs are kept per
 * owner, and a freed slot goes to the owner whose turn it is (round robin over owners, first come within one).
 */

export interface Slot {
  uid: number;
  release(): void;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (error: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export interface RunSlots {
  /**
   * A free slot, now or when one frees up. `onQueued` is called once when the run has to wait, with how many runs
   * are ahead of it. Rejects when `signal` aborts while waiting.
   */
  acquire(owner: string, options?: { signal?: AbortSignal; onQueued?: (ahead: number) => void }): Promise<Slot>;
  /** Runs going on and waiting, for /admin and tests. */
  stats(): { running: number; waiting: number; size: number };
  /**
   * Refuses every run still waiting for a slot, with `reason` (the app's `close()`: nothing is left waiting behind
   * it); runs going on keep theirs, and later runs are served as before. Returns how many were refused.
   */
  cancelWaiting(reason: string): number;
}

export function createRunSlots(size: number, firstUid: number): RunSlots {
  const free: number[] = Array.from({ length: size }, (_, i) => firstUid + i);
  // Owners in the order they get served; each with its own first-come queue.
  const queues = new Map<string, Waiter[]>();
  let waiting = 0;

  const lend = (uid: number): Slot => {
    let released = false;
    return {
      uid,
      release() {
        if (released) return;
        released = true;
        handOn(uid);
      },
    };
  };

  const handOn = (uid: number) => {
    for (const [owner, queue] of queues) {
      const next = queue.shift();
      // The owner goes to the back of the line whether or not they have more waiting.
      queues.delete(owner);
      if (queue.length > 0) queues.set(owner, queue);
      if (!next) continue;
      waiting--;
      if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
      next.resolve(lend(uid));
      return;
    }
    free.push(uid);
  };

  return {
    acquire(owner, options = {}) {
      const { signal, onQueued } = options;
      if (signal?.aborted) return Promise.reject(new Error('the run was cancelled before it started'));
      const uid = free.shift();
      if (uid !== undefined) return Promise.resolve(lend(uid));
      return new Promise<Slot>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject, signal };
        const queue = queues.get(owner) ?? [];
        queue.push(waiter);
        queues.set(owner, queue);
        waiting++;
        if (signal) {
          waiter.onAbort = () => {
            const own = queues.get(owner);
            const at = own?.indexOf(waiter) ?? -1;
            if (own && at >= 0) {
              own.splice(at, 1);
              if (own.length === 0) queues.delete(owner);
              waiting--;
            }
            reject(new Error('the run was cancelled while it waited for a free slot'));
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        onQueued?.(waiting - 1);
      });
    },
    stats: () => ({ running: size - free.length, waiting, size }),
    cancelWaiting(reason) {
      const refused = [...queues.values()].flat();
      queues.clear();
      waiting = 0;
      for (const waiter of refused) {
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        waiter.reject(new Error(reason));
      }
      return refused.length;
    },
  };
}
