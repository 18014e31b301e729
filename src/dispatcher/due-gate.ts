// What the lead owner's consumer does with the task at the head of a retry tier partition. Never early: a message
// not yet due is either held in memory for the last short stretch (so it runs on the dot), or its
// partition is paused and resumed one hold window before the due time, when the message is fetched
// again and held for the rest.
export type DueAction = { kind: 'run' } | { kind: 'hold'; ms: number } | { kind: 'pause'; resumeInMs: number };

export function dueAction(dueAt: number, nowMs: number, holdWindowMs: number): DueAction {
  const wait = dueAt - nowMs;
  if (wait <= 0) return { kind: 'run' };
  if (wait <= holdWindowMs) return { kind: 'hold', ms: wait };
  return { kind: 'pause', resumeInMs: wait - holdWindowMs };
}
