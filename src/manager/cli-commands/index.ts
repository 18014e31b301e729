// The operator's command line as pure argument handling; cli.ts sends the requests it makes.
export { COMMANDS } from './commands';
export { nextPageCommand } from './next-page';
export { parseCommand, UsageError } from './parse-command';
export { usage } from './usage';
