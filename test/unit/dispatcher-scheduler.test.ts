import { DeliveryScheduler, type DeliveryJob } from '../../src/dispatcher/delivery-scheduler';

// A run function whose jobs finish only when the test says so.
function controlledRun() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const run = (deliveryId: string) =>
    new Promise<void>((resolve) => {
      started.push(deliveryId);
      finishers.set(deliveryId, resolve);
    });
  const finish = async (id: string) => {
    finishers.get(id)?.();
    await new Promise((r) => setImmediate(r));
  };
  return { started, run, finish };
}

let run: (deliveryId: string) => Promise<void> = async () => undefined;
const job = (deliveryId: string, partnerId: string): DeliveryJob => ({
  deliveryId,
  partnerId,
  run: () => run(deliveryId),
});
const limits = { concurrency: 3, perPartnerConcurrency: 2, maxQueuedPerPartner: 10 };

describe('delivery scheduler', () => {
  it('caps each partner, so a stuck partner leaves room for the others', () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler(limits, () => undefined);
    for (let i = 0; i < 5; i++) s.submit(job(`slow-${i}`, 'slow'));
    s.submit(job('fast-0', 'fast'));
    expect(c.started).toEqual(['slow-0', 'slow-1', 'fast-0']);
  });

  it('takes partners in turn when slots free up', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, concurrency: 1 }, () => undefined);
    ['a1', 'a2', 'a3'].forEach((id) => s.submit(job(id, 'a')));
    ['b1', 'b2'].forEach((id) => s.submit(job(id, 'b')));
    for (const id of ['a1', 'b1', 'a2', 'b2']) await c.finish(id);
    expect(c.started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('refuses a delivery already pending, and a job beyond the partner queue limit', () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, perPartnerConcurrency: 1, maxQueuedPerPartner: 1 }, () => undefined);
    expect(s.submit(job('d1', 'p'))).toBe(true);
    expect(s.submit(job('d1', 'p'))).toBe(false);
    expect(s.submit(job('d2', 'p'))).toBe(true);
    expect(s.submit(job('d3', 'p'))).toBe(false);
  });

  it('accepts a delivery again once its job has finished', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler(limits, () => undefined);
    s.submit(job('d1', 'p'));
    await c.finish('d1');
    expect(s.submit(job('d1', 'p'))).toBe(true);
  });

  it('tells when the job of a delivery has left, so a later one of it waits instead of going beside it', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler(limits, () => undefined);
    expect(s.settled('d1')).toBeNull();
    s.submit(job('d1', 'p'));
    let left = false;
    void s.settled('d1')?.then(() => {
      left = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(left).toBe(false);
    await c.finish('d1');
    expect(left).toBe(true);
    expect(s.settled('d1')).toBeNull();
  });

  it('reports a failed job and carries on', async () => {
    const errors: string[] = [];
    run = async (id) => {
      throw new Error(id);
    };
    const s = new DeliveryScheduler(limits, (err) => errors.push((err as Error).message));
    s.submit(job('d1', 'p'));
    s.submit(job('d2', 'p'));
    await s.drain();
    expect(errors.sort()).toEqual(['d1', 'd2']);
  });

  it('drains: waits for running jobs, drops queued ones, accepts nothing new', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, concurrency: 1 }, () => undefined);
    s.submit(job('d1', 'p'));
    s.submit(job('d2', 'p'));
    let drained = false;
    const draining = s.drain().then(() => {
      drained = true;
    });
    expect(s.submit(job('d3', 'q'))).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    await c.finish('d1');
    await draining;
    expect(c.started).toEqual(['d1']);
  });
});

describe('delivery scheduler at a hand-over', () => {
  it('drops the queued jobs of handed-over work, so their deliveries may be submitted again', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, perPartnerConcurrency: 1 }, () => undefined);
    let handedOver = false;
    const fencedJob = (id: string): DeliveryJob => ({ ...job(id, 'p'), fenced: () => handedOver });
    ['d1', 'd2', 'd3'].forEach((id) => s.submit(fencedJob(id)));
    handedOver = true;
    s.dropFenced();
    expect(s.submit(job('d2', 'p'))).toBe(true);
    await c.finish('d1');
    expect(c.started).toEqual(['d1', 'd2']);
  });
});

describe('delivery scheduler: jobs that wait for room', () => {
  it('keeps a job beyond the partner queue waiting, in order, and queues it as room frees up', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, perPartnerConcurrency: 1, maxQueuedPerPartner: 1 }, () => undefined);
    expect(s.submit(job('d1', 'p'))).toBe(true);
    expect(s.submit(job('d2', 'p'))).toBe(true);
    expect(s.submit(job('d3', 'p'))).toBe(false);
    expect(s.submitWhenRoom(job('d3', 'p'))).toBe(true);
    expect(s.submitWhenRoom(job('d4', 'p'))).toBe(true);
    expect(s.submitWhenRoom(job('d4', 'p'))).toBe(false); // pending already
    expect(s.submit(job('d5', 'p'))).toBe(false); // the waiting ones go first
    for (const id of ['d1', 'd2', 'd3']) await c.finish(id);
    expect(c.started).toEqual(['d1', 'd2', 'd3', 'd4']);
  });

  it('drops waiting jobs of handed-over work and at a drain', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, perPartnerConcurrency: 1, maxQueuedPerPartner: 1 }, () => undefined);
    let handedOver = false;
    s.submit(job('d1', 'p'));
    s.submit(job('d2', 'p'));
    s.submitWhenRoom({ ...job('d3', 'p'), fenced: () => handedOver });
    s.submitWhenRoom(job('d4', 'p'));
    handedOver = true;
    s.dropFenced();
    expect(s.isPending('d3')).toBe(false);
    const draining = s.drain();
    expect(s.isPending('d4')).toBe(false);
    await c.finish('d1');
    await draining;
    expect(c.started).toEqual(['d1']);
  });
});

describe("delivery scheduler: a partner's room", () => {
  it('tells how many more jobs the partner queue takes, and when it takes more, at the pace its jobs start', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, perPartnerConcurrency: 1, maxQueuedPerPartner: 2 }, () => undefined);
    expect(s.room('p')).toBe(2);
    ['d1', 'd2', 'd3'].forEach((id) => s.submit(job(id, 'p'))); // d1 runs, d2 and d3 queued
    expect(s.room('p')).toBe(0);
    let roomy = false;
    const waiting = s.untilRoom('p').then(() => (roomy = true));
    await new Promise((r) => setImmediate(r));
    expect(roomy).toBe(false);
    await c.finish('d1'); // d2 starts: one place in the queue
    await waiting;
    expect(s.room('p')).toBe(1);
    await s.untilRoom('p'); // room now: at once
  });

  it('wakes who waits for room at a hand-over and at a drain, whatever the queue', async () => {
    const c = controlledRun();
    run = c.run;
    const s = new DeliveryScheduler({ ...limits, perPartnerConcurrency: 1, maxQueuedPerPartner: 1 }, () => undefined);
    s.submit(job('d1', 'p'));
    s.submit(job('d2', 'p'));
    const atHandOver = s.untilRoom('p');
    s.dropFenced();
    await atHandOver;
    const atDrain = s.untilRoom('p');
    const draining = s.drain();
    await atDrain;
    await c.finish('d1');
    await draining;
  });
});
