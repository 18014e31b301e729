import { ConfigError } from '../errors';

export type Env = Record<string, string | undefined>;

// Reads one variable as its type, with its default and bounds; a bad value throws ConfigError naming it.
export class EnvReader {
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string {
    const raw = this.env[name];
    if (raw !== undefined && raw.trim() !== '') return raw.trim();
    if (fallback !== undefined) return fallback;
    throw new ConfigError(name, 'is required');
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(name, `must be true or false, got "${raw}"`);
  }

  list(name: string, fallback: readonly string[] = []): string[] {
    const raw = this.env[name];
    if (raw === undefined || raw.trim() === '') return [...fallback];
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  url(name: string, fallback: string, protocols: readonly string[]): string {
    const value = this.string(name, fallback);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(name, `must be a URL, got "${value}"`);
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
    return value.replace(/\/$/, '');
  }
}
