import { Background } from '../../src/shared/background';

// Work started beside a batch: a stop waits for all of it, and no failure is left floating.
describe('Background', () => {
  it('is settled only once every piece of work has settled, including work started while waiting', async () => {
    const bg = new Background();
    const done: string[] = [];
    bg.run(async () => {
      await new Promise((r) => setTimeout(r, 20));
      done.push('first');
      bg.run(async () => {
        await new Promise((r) => setTimeout(r, 20));
        done.push('second');
      }, fail);
    }, fail);
    expect(bg.size).toBe(1);
    await bg.settled();
    expect(done).toEqual(['first', 'second']);
    expect(bg.size).toBe(0);
  });

  it('hands a failure to its handler, and survives a handler that fails too', async () => {
    const bg = new Background();
    const seen: unknown[] = [];
    bg.run(
      () => Promise.reject(new Error('boom')),
      (err) => seen.push((err as Error).message),
    );
    bg.run(
      () => Promise.reject(new Error('again')),
      () => Promise.reject(new Error('the handler too')),
    );
    await bg.settled();
    expect(seen).toEqual(['boom']);
  });
});

const fail = (err: unknown) => {
  throw err;
};
