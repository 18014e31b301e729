import { expectRepeatsOnlyAround, rollingDrill, type DrillRole } from '../support/rolling-drill';

// A process frozen past its group session (a long GC pause, a throttled container, a live-migrated
// VM: SIGSTOP here), then thawed (SIGCONT) after the other instance of its role took its
// partitions, under a load that keeps attempts in flight and queued. What the thawed process still
// had under way must not be committed past, written over the new owner's work, or sent again
// beyond the attempts that were in flight when it froze (docs/delivery-guarantees.md).
const SESSION_MS = 10_000;
const FREEZE_MS = SESSION_MS * 1.5;
const drill = rollingDrill({ KAFKA_SESSION_TIMEOUT_MS: String(SESSION_MS) });
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

it.each<DrillRole>(['dispatcher', 'processor'])(
  'a %s frozen past its session and thawed loses, repeats and reorders nothing',
  async (role) => {
    let frozenAt = 0;
    const { got, report } = await drill.underLoad(
      [
        () => wait(5000),
        async () => {
          const pid = drill.pid(role, 0);
          process.kill(pid, 'SIGSTOP');
          frozenAt = Date.now();
          await wait(FREEZE_MS);
          process.kill(pid, 'SIGCONT');
          if (process.env.DRILL_REPORT)
            process.stderr.write(`froze ${role} #0 (pid ${pid}) at ${frozenAt} for ${FREEZE_MS} ms\n`);
        },
        () => wait(8000),
      ],
      { perSecond: 60, maxInFlight: 32 },
    );
    // Enough load to matter (about 28 s at up to 60/s), allowing for a machine busy with other drills.
    expect(report.leads).toBeGreaterThan(300);
    expectRepeatsOnlyAround(got, frozenAt, report);
  },
  300_000,
);
