import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import type { JsonOptions } from '@kafkajs/confluent-schema-registry/dist/@types';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { bundledSchema, describeErrors, validatorFor } from '../schemas';
import type { TopicKey, TopicSpec } from './topics';
import { ServiceError } from '../errors';

// Schema ids whose subjects are remembered: the pipeline's few, and a bound against made-up ones.
const MAX_SCHEMA_IDS = 1000;

export class DecodeError extends ServiceError {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super('undecodable', `${reason}: ${detail}`, { retriable: false });
    this.name = 'DecodeError';
  }
}

// Topic payloads in the Confluent wire format (magic byte, schema id, JSON), each topic's schema
// registered as <topic>-value with BACKWARD compatibility. Decoding yields a schema-checked,
// typed object or a DecodeError: nothing downstream handles raw bytes.
export class TopicCodec {
  private readonly ids = new Map<TopicKey, number>();
  private readonly subjects = new Map<number, Promise<Set<string>>>();
  private readonly registry: SchemaRegistry;

  constructor(
    private readonly registryUrl: string,
    private readonly specs: readonly TopicSpec[],
  ) {
    const ajv = new Ajv({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    // The library ships its own copy of Ajv's types; it needs only these two methods of ours (with formats).
    const ajvInstance = {
      addSchema: (schema: object, key?: string) => ajv.addSchema(schema, key),
      compile: (schema: object) => ajv.compile(schema),
    } as unknown as JsonOptions['ajvInstance'];
    this.registry = new SchemaRegistry({ host: registryUrl }, { [SchemaType.JSON]: { ajvInstance } });
  }

  // The subjects side by side: each is two requests to the registry, and a start registers them all.
  async registerAll(): Promise<void> {
    await Promise.all(
      this.specs.map(async (spec) => {
        if (!spec.schema) return;
        const subject = `${spec.name}-value`;
        await this.setCompatibility(subject, 'BACKWARD');
        const { id } = await this.registry.register(
          { type: SchemaType.JSON, schema: JSON.stringify(bundledSchema(spec.schema)) },
          { subject },
        );
        this.ids.set(spec.key, id);
      }),
    );
  }

  async encode(topic: TopicKey, value: object): Promise<Buffer> {
    const id = this.ids.get(topic);
    if (id === undefined) throw new Error(`no schema registered for topic ${topic}`);
    return this.registry.encode(id, value);
  }

  async decode<T>(topic: TopicKey, buffer: Buffer | null): Promise<T> {
    const spec = this.specs.find((s) => s.key === topic);
    if (!spec?.schema) throw new Error(`topic ${topic} has no schema`);
    if (!buffer || buffer.length < 6 || buffer[0] !== 0)
      throw new DecodeError('not_wire_format', 'value is not in the schema registry wire format');
    // The writer's schema must be a version of this topic's subject (a message framed with another
    // topic's schema is refused, whatever it holds); the value is then checked once, against this
    // reader's schema. The library's decode would check it against the writer's schema first: a
    // second full validation of every message.
    let value: unknown;
    try {
      const id = buffer.readInt32BE(1);
      if (!(await this.subjectsOf(id)).has(`${spec.name}-value`))
        throw new Error(`schema ${id} is not a version of ${spec.name}-value`);
      value = JSON.parse(buffer.subarray(5).toString('utf8'));
    } catch (err) {
      throw new DecodeError('schema_violation', (err as Error).message);
    }
    const validate = validatorFor<T>(spec.schema);
    if (!validate(value)) throw new DecodeError('schema_violation', describeErrors(validate.errors));
    return value;
  }

  // The subjects a schema id is a version of, asked once per id (a registry gives one id to the same
  // schema in several subjects); an unknown id has none.
  private subjectsOf(id: number): Promise<Set<string>> {
    let subjects = this.subjects.get(id);
    if (!subjects) {
      subjects = this.fetchSubjects(id);
      subjects.catch(() => this.subjects.delete(id));
      if (this.subjects.size >= MAX_SCHEMA_IDS) this.subjects.clear();
      this.subjects.set(id, subjects);
    }
    return subjects;
  }

  private async fetchSubjects(id: number): Promise<Set<string>> {
    const res = await fetch(`${this.registryUrl}/schemas/ids/${id}/versions`);
    if (res.status === 404) return new Set();
    if (!res.ok) throw new Error(`schema registry answered HTTP ${res.status} for schema ${id}`);
    return new Set(((await res.json()) as { subject: string }[]).map((v) => v.subject));
  }

  // Instances starting together race to create the subject's rule: Apicurio answers the loser 409
  // ("A rule named 'COMPATIBILITY' already exists"). The rule exists then, and setting it again updates it.
  private async setCompatibility(subject: string, level: 'BACKWARD'): Promise<void> {
    for (let tries = 1; ; tries++) {
      const res = await fetch(`${this.registryUrl}/config/${encodeURIComponent(subject)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
        body: JSON.stringify({ compatibility: level }),
      });
      if (res.ok) return;
      const body = await res.text();
      if (res.status !== 409 || tries >= 3)
        throw new Error(`schema registry refused compatibility for ${subject}: HTTP ${res.status} ${body}`);
    }
  }
}
