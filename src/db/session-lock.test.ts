import { describe, expect, it } from 'vitest';
import { asBackgroundWork, SessionLock } from './pglite-dialect.ts';

/** Queues one holder per label and records the order in which they got the session. */
async function order(lock: SessionLock, plan: { label: string; background: boolean }[]): Promise<string[]> {
  const served: string[] = [];
  const first = await lock.acquire(); // hold the session while everyone queues
  const waits = plan.map(({ label, background }) => {
    const take = () =>
      lock.run(async () => {
        served.push(label);
      });
    return background ? asBackgroundWork(take) : take();
  });
  first();
  await Promise.all(waits);
  return served;
}

describe('SessionLock', () => {
  it('serves waiting requests before background work that queued earlier', async () => {
    const served = await order(new SessionLock(), [
      { label: 'job 1', background: true },
      { label: 'job 2', background: true },
      { label: 'request 1', background: false },
      { label: 'request 2', background: false },
    ]);
    expect(served).toEqual(['request 1', 'request 2', 'job 1', 'job 2']);
  });

  it('keeps first come, first served within each class', async () => {
    const plan = Array.from({ length: 6 }, (_, index) => ({ label: `r${index}`, background: false }));
    expect(await order(new SessionLock(), plan)).toEqual(plan.map((entry) => entry.label));
  });

  it('gives background work a turn after a streak of requests, so it is never starved', async () => {
    const lock = new SessionLock();
    const served: string[] = [];
    const first = await lock.acquire();
    const job = asBackgroundWork(() => lock.run(async () => void served.push('job')));
    // Each request queues the next one while it holds the session: a never-ending stream.
    let remaining = 40;
    const request = (): Promise<void> =>
      lock.run(async () => {
        served.push('request');
        if (--remaining > 0) void request();
      });
    const stream = request();
    first();
    await Promise.all([job, stream]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const position = served.indexOf('job');
    expect(position).toBeGreaterThan(0);
    expect(position).toBeLessThanOrEqual(17);
  });

  it("serves a request's next statement before background work that waited while the request held the session", async () => {
    const lock = new SessionLock();
    const served: string[] = [];
    const firstStatement = await lock.acquire();
    const chunk = asBackgroundWork(() => lock.run(async () => void served.push('upload chunk')));
    firstStatement();
    // The request's next statement comes a moment later (its handler ran in between), as the page
    // after the API-key lookup does; no request was waiting at the release.
    await new Promise((resolve) => setImmediate(resolve));
    const nextStatement = lock.run(async () => void served.push('request, next statement'));
    await Promise.all([chunk, nextStatement]);
    expect(served).toEqual(['request, next statement', 'upload chunk']);
  });

  it('ignores a second release of the same grant', async () => {
    const lock = new SessionLock();
    const release = await lock.acquire();
    let second = false;
    const waiter = lock.acquire().then((next) => {
      second = true;
      return next;
    });
    release();
    release();
    const next = await waiter;
    expect(second).toBe(true);
    let third = false;
    const later = lock.acquire().then(() => (third = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(third).toBe(false); // the double release did not hand the session to two holders
    next();
    await later;
    expect(third).toBe(true);
  });
});
