// The settings the partner document quotes (from the configuration), and the pieces it is written with.
export interface PartnerDocSettings {
  serviceName: string;
  bodyLimitBytes: number;
  timestampToleranceS: number;
  reportScanMs: number; // how long a lead list call checks entries one by one (REPORT_SCAN_MS)
}

export type Json = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
