import { randomBytes } from 'node:crypto';
import { DecodeError, TopicCodec } from '../../src/shared/kafka/codec';
import { loadTopicSpecs } from '../../src/shared/kafka/topics';
import { testConfig } from '../support/test-config';

// The codec against the real schema registry: a value is checked once, against the reader's schema,
// and only if the schema it is framed with is a version of the topic's own subject.
const codec = new TopicCodec(testConfig().schemaRegistryUrl, loadTopicSpecs(`t${randomBytes(4).toString('hex')}.`));
const action = { action_id: 'a-1', lead_id: 'le-1', status: 'contacted', occurred_at: new Date().toISOString() };
const event = {
  event_id: 'le-1:0',
  event: 'lead.accepted',
  lead_id: 'le-1',
  partner_id: 'pa-1',
  external_lead_id: 'x',
  our_status: 'new',
  is_depositor: false,
  occurred_at: new Date().toISOString(),
};
const reframed = (frame: Buffer, value: object) =>
  Buffer.concat([frame.subarray(0, 5), Buffer.from(JSON.stringify(value))]);

beforeAll(async () => {
  await codec.registerAll();
});

it('decodes a value framed with its own topic schema', async () => {
  await expect(codec.decode('agentActions', await codec.encode('agentActions', action))).resolves.toEqual(action);
});

it("refuses a valid value framed with another topic's schema, or with a schema id the registry does not know", async () => {
  const foreign = reframed(await codec.encode('leadEvents', event), action);
  await expect(codec.decode('agentActions', foreign)).rejects.toMatchObject({
    reason: 'schema_violation',
    message: expect.stringMatching(/is not a version of/),
  });
  const unknown = Buffer.concat([Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0]), Buffer.from(JSON.stringify(action))]);
  await expect(codec.decode('agentActions', unknown)).rejects.toBeInstanceOf(DecodeError);
});

it("refuses a value its own topic's schema does not allow", async () => {
  const { lead_id: _gone, ...noLead } = action;
  const own = reframed(await codec.encode('agentActions', action), noLead);
  await expect(codec.decode('agentActions', own)).rejects.toMatchObject({ reason: 'schema_violation' });
});
