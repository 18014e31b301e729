import { AGENT_COMMANDS } from './agent-commands';
import type { Command } from './command-shape';
import { DELIVERY_COMMANDS } from './delivery-commands';
import { LEAD_COMMANDS } from './lead-commands';
import { PARTNER_COMMANDS } from './partner-commands';
import { REPORT_COMMANDS } from './report-commands';

// Every command of the operator's command line, in the order the usage lists them.
export const COMMANDS: Record<string, Command> = {
  ...PARTNER_COMMANDS,
  ...DELIVERY_COMMANDS,
  ...AGENT_COMMANDS,
  ...LEAD_COMMANDS,
  ...REPORT_COMMANDS,
};
