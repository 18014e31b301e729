import { WriteBatch } from '../../src/shared/mongo/write-batch';

// Writes gathered for a few milliseconds and made in one command, in the order they came.
describe('a write batch', () => {
  it('makes the writes added within a few milliseconds in one call and answers each in order', async () => {
    const calls: number[][] = [];
    const batch = new WriteBatch<number, string>(async (items) => {
      calls.push(items);
      return items.map((i) => `done ${i}`);
    });
    const answers = await Promise.all([batch.add(1), batch.add(2), batch.add(3)]);
    expect(answers).toEqual(['done 1', 'done 2', 'done 3']);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('never puts two writes of one key in one call, and writes the calls one after another', async () => {
    const calls: string[][] = [];
    let inFlight = 0;
    const batch = new WriteBatch<{ key: string; v: number }, boolean>(
      async (items) => {
        inFlight++;
        expect(inFlight).toBe(1);
        await new Promise((r) => setTimeout(r, 2));
        calls.push(items.map((i) => `${i.key}${i.v}`));
        inFlight--;
        return items.map(() => true);
      },
      (i) => i.key,
    );
    await Promise.all([batch.add({ key: 'a', v: 1 }), batch.add({ key: 'b', v: 1 }), batch.add({ key: 'a', v: 2 })]);
    expect(calls).toEqual([['a1', 'b1'], ['a2']]);
  });

  it('rejects every add of a call that fails, and the next call still goes', async () => {
    let fail = true;
    const batch = new WriteBatch<number, number>(async (items) => {
      if (fail) throw new Error('store down');
      return items;
    });
    const failed = [batch.add(1), batch.add(2)];
    await expect(Promise.all(failed)).rejects.toThrow('store down');
    await Promise.allSettled(failed);
    fail = false;
    await expect(batch.add(3)).resolves.toBe(3);
  });

  it('drain waits for everything added so far', async () => {
    const written: number[] = [];
    const batch = new WriteBatch<number, void>(async (items) => {
      written.push(...items);
      return items.map(() => undefined);
    });
    const adds = [batch.add(1), batch.add(2)];
    await batch.drain();
    expect(written).toEqual([1, 2]);
    await Promise.all(adds);
  });
});
