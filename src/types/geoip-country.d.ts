// geoip-country ships no types; only the lookup the service uses is declared.
declare module 'geoip-country' {
  export function lookup(ip: string): { country: string } | null;
}
