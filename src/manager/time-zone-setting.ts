import { isKnownTimeZone } from '../shared/local-time';

// What the schema cannot say about a time_zone setting (partners' caps, agents' working hours): that
// this runtime can compute in it. Returns the problem or null.
export function timeZoneProblem(settings: { time_zone?: string }): string | null {
  const zone = settings.time_zone;
  return zone === undefined || isKnownTimeZone(zone)
    ? null
    : `/time_zone "${zone}" is not an IANA time zone this server knows`;
}

// The zones the document offers for a time_zone setting: this runtime's canonical IANA names and UTC
// (which Intl does not list). Only the document enumerates them: the server also takes the aliases
// it can compute in (Europe/Kiev, US/Eastern), which no runtime lists.
export const DOCUMENTED_TIME_ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone')];

type SchemaWithTimeZone = { properties?: { time_zone?: object } };

// The document's settings schemas (PartnerSettings, AgentSettings) with time_zone enumerated; copies,
// as a component may be the very schema the routes validate with.
export function documentTimeZones(components: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const schema = components[name] as SchemaWithTimeZone | undefined;
    const zone = schema?.properties?.time_zone;
    if (!schema?.properties || !zone) throw new Error(`the OpenAPI component ${name} has no time_zone`);
    components[name] = {
      ...schema,
      properties: { ...schema.properties, time_zone: { ...zone, enum: DOCUMENTED_TIME_ZONES } },
    };
  }
}
