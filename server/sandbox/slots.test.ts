/** Run slots: a cap per server, a uid per run, fair between people, and cancellation while queued. */
import { describe, expect, it } from 'vitest';
import { createRunSlots } from './slots';

describe('run slots', () => {
  it('lends each concurrent run its own uid and reuses a uid only after release', async () => {
    const slots = createRunSlots(2, 500);
    const a = await slots.acquire('ann');
    const b = await slots.acquire('bob');
    expect(new Set([a.uid, b.uid])).toEqual(new Set([500, 501]));
    let third: number | null = null;
    const waiting = slots.acquire('cat').then((s) => {
      third = s.uid;
      return s;
    });
    await Promise.resolve();
    expect(third).toBeNull();
    expect(slots.stats()).toEqual({ running: 2, waiting: 1, size: 2 });
    a.release();
    a.release(); // twice is once
    expect((await waiting).uid).toBe(a.uid);
    expect(slots.stats()).toEqual({ running: 2, waiting: 0, size: 2 });
  });

  it('serves people in turn: one person with many queued runs does not hold everyone else back', async () => {
    const slots = createRunSlots(1, 100);
    const first = await slots.acquire('ann');
    const order: string[] = [];
    const queue = (owner: string, tag: string) =>
      slots.acquire(owner).then((slot) => {
        order.push(tag);
        slot.release();
      });
    const all = [queue('ann', 'ann-1'), queue('ann', 'ann-2'), queue('ann', 'ann-3'), queue('bob', 'bob-1')];
    first.release();
    await Promise.all(all);
    expect(order).toEqual(['ann-1', 'bob-1', 'ann-2', 'ann-3']);
  });

  it('tells a queued run how many are ahead, and drops it when cancelled', async () => {
    const slots = createRunSlots(1, 100);
    const held = await slots.acquire('ann');
    const ahead: number[] = [];
    await Promise.resolve();
    const first = slots.acquire('bob', { onQueued: (n) => ahead.push(n) });
    const controller = new AbortController();
    const second = slots.acquire('cat', { signal: controller.signal, onQueued: (n) => ahead.push(n) });
    expect(ahead).toEqual([0, 1]);
    controller.abort();
    await expect(second).rejects.toThrow(/cancelled while it waited/);
    expect(slots.stats().waiting).toBe(1);
    held.release();
    expect((await first).uid).toBe(100);
  });

  it('refuses the runs still waiting when told to (the app closing), and serves later ones as before', async () => {
    const slots = createRunSlots(1, 100);
    const held = await slots.acquire('ann');
    const waiting = [slots.acquire('bob'), slots.acquire('cat', { signal: new AbortController().signal })];
    expect(slots.cancelWaiting('the server is shutting down')).toBe(2);
    for (const run of waiting) await expect(run).rejects.toThrow('the server is shutting down');
    expect(slots.stats()).toEqual({ running: 1, waiting: 0, size: 1 });
    held.release();
    expect((await slots.acquire('dan')).uid).toBe(100);
  });
});
