import { IntakeCohort } from '../../src/ingress/intake-cohort';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('IntakeCohort', () => {
  it('lets a request after a quiet spell go at once', async () => {
    const cohort = new IntakeCohort(30);
    expect(await settled(cohort.join(1000))).toBe(true);
    expect(await settled(cohort.join(1100))).toBe(true); // 100 ms later: quiet again
  });

  it('holds requests that come close together until their window ends, then opens a new one', async () => {
    const cohort = new IntakeCohort(30);
    const t = Date.now();
    expect(await settled(cohort.join(t))).toBe(true);
    const second = cohort.join(t + 5);
    const third = cohort.join(t + 6);
    expect(third).toBe(second);
    expect(await settled(second)).toBe(false);
    const started = Date.now();
    await second;
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    const next = cohort.join(t + 20);
    expect(next).not.toBe(second);
    await next;
  });

  it('waits for nothing with a window of 0', async () => {
    const cohort = new IntakeCohort(0);
    expect(await settled(cohort.join(1))).toBe(true);
    expect(await settled(cohort.join(1))).toBe(true);
  });
});
