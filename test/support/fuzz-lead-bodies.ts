import fc from 'fast-check';

// Generated bodies for POST /api/v1/inbound/leads, mostly malformed: broken JSON and random bytes,
// wrong types, huge and deeply nested values, odd unicode, and now and then a valid lead.
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const oddChar = fc.oneof(
  fc.constantFrom(
    '\u0000',
    '\u202e',
    '\u200b',
    '\ufeff',
    '\uffff',
    '\u{1f600}',
    '\u0301',
    '\r\n',
    '"',
    '\\',
    '<script>',
    '${x}',
    '%00',
  ),
  loneSurrogate,
);
const oddString = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 3 },
  {
    arbitrary: fc.array(fc.oneof(oddChar, fc.string({ maxLength: 3 })), { maxLength: 12 }).map((a) => a.join('')),
    weight: 3,
  },
  { arbitrary: fc.nat({ max: 3000 }).map((n) => 'x'.repeat(n)), weight: 1 }, // over most field limits
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 3 }),
);
const phone = fc.oneof(
  { arbitrary: oddString, weight: 4 },
  {
    arbitrary: fc.constantFrom(
      '+',
      '+1',
      '+44',
      '00447911123456',
      '+44 7911 123456',
      '+\uff14\uff14\uff17\uff19\uff11\uff11',
      '+447911123456\u0000',
      'tel:+447911123456',
    ),
    weight: 3,
  },
  { arbitrary: fc.stringMatching(/^\+[0-9]{1,18}$/), weight: 1 }, // now and then a possible number: accepted or duplicate
  { arbitrary: wrongType, weight: 2 },
);
const FIELDS = [
  'external_id',
  'first_name',
  'last_name',
  'full_name',
  'email',
  'country',
  'country_code',
  'language',
  'ip',
  'user_agent',
  'source',
  'funnel',
  'sub_id',
  'click_id',
  'landing_url',
];
const fieldValue = fc.oneof({ arbitrary: oddString, weight: 3 }, { arbitrary: wrongType, weight: 1 });
// Nested arrays and objects, `depth` levels, built as text so that no recursion is needed here either.
const deeplyNested = fc
  .record({ depth: fc.integer({ min: 20, max: 12_000 }), arrays: fc.boolean() })
  .map(({ depth, arrays }) =>
    arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );
const metadata = fc.oneof(
  fc
    .dictionary(
      fc.oneof(oddString, fc.constantFrom('__proto__', 'constructor', 'a.b', '$where', '')),
      fc.jsonValue({ maxDepth: 3 }),
      { maxKeys: 60 },
    )
    .map((m) => JSON.stringify(m)),
  deeplyNested,
  wrongType.map((v) => JSON.stringify(v)),
);
const leadish = fc
  .record({
    phone: fc.option(phone, { nil: undefined }),
    fields: fc.dictionary(fc.constantFrom(...FIELDS), fieldValue, { maxKeys: 6 }),
    unknown: fc.dictionary(
      fc.oneof(oddString, fc.constantFrom('__proto__', 'constructor', 'phone ', 'PHONE', 'contact')),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 2 },
    ),
    metadata: fc.option(metadata, { nil: undefined }),
  })
  .map(({ phone: p, fields, unknown, metadata: m }) => {
    const parts = [...Object.entries({ ...unknown, ...fields }), ...(p === undefined ? [] : [['phone', p]])].map(
      ([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`,
    );
    if (m !== undefined) parts.push(`"metadata":${m}`);
    return `{${parts.join(',')}}`;
  });
// For the partner with a field_mapping (contact.phone, profile.first, extra as metadata).
const mapped = fc
  .record({
    contact: fc.oneof(
      fc.record({ phone }).map((c) => JSON.stringify(c)),
      wrongType.map((v) => JSON.stringify(v)),
      deeplyNested,
    ),
    extra: fc.option(metadata, { nil: undefined }),
  })
  .map(({ contact, extra }) => `{"contact":${contact}${extra === undefined ? '' : `,"extra":${extra}`}}`);
const brokenJson = fc.oneof(
  fc.tuple(fc.json({ maxDepth: 3 }), fc.nat()).map(([j, n]) => j.slice(0, n % Math.max(1, j.length))), // cut short
  fc
    .tuple(leadish, fc.nat(), fc.constantFrom(',', '}', ']', '"', ':', '\\', "'", 'NaN', 'undefined', '\u0000'))
    .map(([j, n, c]) => {
      const at = n % (j.length + 1);
      return j.slice(0, at) + c + j.slice(at);
    }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '[]',
    '"phone"',
    '1e999',
    '{"phone":"+447911123456",}',
    "{'phone':'+447911123456'}",
    '{"phone":"+44\\u00"}',
    '\ufeff{}',
  ),
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v))
    .map((v) => JSON.stringify(v)),
);
export const intakeBody: fc.Arbitrary<Buffer> = fc.oneof(
  { arbitrary: leadish.map((s) => Buffer.from(s)), weight: 8 },
  { arbitrary: brokenJson.map((s) => Buffer.from(s)), weight: 4 },
  { arbitrary: mapped.map((s) => Buffer.from(s)), weight: 2 },
  { arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)), weight: 2 }, // random bytes, invalid UTF-8 included
  {
    arbitrary: fc
      .nat({ max: 40_000 })
      .map((n) => Buffer.from(`{"phone":"+447911000000","note":"${'x'.repeat(66_000 + n)}"}`)),
    weight: 1,
  }, // over 64 KiB
);
