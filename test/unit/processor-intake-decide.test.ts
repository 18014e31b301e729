import type { IntakeDecisionDoc } from '../../src/shared/mongo/documents';
import type { IntakeCommand, IntakeDecision } from '../../src/shared/schemas';
import type { Candidate } from '../../src/processor/intake/candidates';
import { afterBlocker, answersOf, decision } from '../../src/processor/intake/decide';

// The pure step of an intake chunk: no store, the time passed in.
const NOW = new Date('2026-11-24T12:00:00Z');
const cmd = (key: string, bodyHash = `h-${key}`) =>
  ({ partner_id: 'pa-1', idempotency_key: key, body_hash: bodyHash }) as IntakeCommand;

describe('answersOf', () => {
  it('answers the first command of a key, replays its repeats, and leaves the undecided unanswered', () => {
    const a = cmd('a');
    const accepted: IntakeDecision = decision(a, 'accepted', 'le-1', null);
    const decided = new Map<string, IntakeDecision | null>([
      ['pa-1:a', accepted],
      ['pa-1:b', null],
    ]);
    const out = answersOf([a, cmd('b'), cmd('a')], new Map(), decided, new Set(), NOW);
    expect(out.decisions).toEqual([{ _id: 'pa-1:a', partner_id: 'pa-1', ...accepted, replay: false, decided_at: NOW }]);
    expect(out.replies.map((r) => [r.decision.outcome, r.decision.replay])).toEqual([
      ['accepted', false],
      ['accepted', true],
    ]);
    expect(out.undecided.map((c) => c.idempotency_key)).toEqual(['b']);
  });

  it('answers a stored decision as a replay for the same body and a mismatch for another', () => {
    const stored: IntakeDecisionDoc = {
      _id: 'pa-1:a',
      partner_id: 'pa-1',
      decided_at: NOW,
      ...decision(cmd('a'), 'duplicate', 'le-9', 'matched_lead:9'),
    };
    const out = answersOf([cmd('a'), cmd('a', 'other')], new Map([['pa-1:a', stored]]), new Map(), new Set(), NOW);
    expect(out.replies.map((r) => r.decision.outcome)).toEqual(['duplicate', 'idempotency_mismatch']);
    expect(out.decisions).toEqual([]);
  });
});

describe('afterBlocker', () => {
  const blocker = (fate: Candidate['fate'], overCap = false) => ({ leadId: 'le-5', fate, overCap }) as Candidate;
  it("meets the earlier command's new lead, or goes round again if it gave the key back", () => {
    expect(afterBlocker({ kind: 'blocked', by: blocker({ kind: 'create' }), via: 'phone' })).toEqual({
      kind: 'duplicate',
      leadId: 'le-5',
      via: 'phone',
    });
    expect(afterBlocker({ kind: 'blocked', by: blocker({ kind: 'create' }, true), via: 'phone' })).toEqual({
      kind: 'retry',
    });
    expect(afterBlocker({ kind: 'blocked', by: blocker({ kind: 'create' }, true), via: 'ref' })).toEqual({
      kind: 'duplicate',
      leadId: 'le-5',
      via: 'ref',
    });
  });
});
