// The processor's public face (CONTRIBUTING.md, Layout): what other roles may ask of it. Changes to a lead go
// as commands on leads.commands to the lead's one owner; a rebuild of the reports' read model is an
// operator's command, run where it is asked (the manager CLI's rebuild-reports).
export { LeadCommands, leadCommand, type LeadCommandsDeps } from './lead-commands';
export { rebuildReportsOf, type RebuildSummary } from './reports';
// The counters a partner's leads count against under its caps: what the portal shows with their use.
export { capCounters, type CapScope } from './caps';
// What a partner's caps have used now, read from those counters: the portal's overview and the alerts.
export { capUse, capCounterUse, type CapUse, type CounterUse, type CappedPartner } from './cap-use';
