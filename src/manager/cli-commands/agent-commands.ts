import { enc, PAGE_FLAGS, type Command, type Flag } from './command-shape';

// The commands about agents.
const AGENT_FLAGS: Record<string, Flag> = {
  name: { kind: 'text', field: 'name' },
  active: { kind: 'bool', field: 'active' },
  countries: { kind: 'list', field: 'countries' },
  languages: { kind: 'list', field: 'languages' },
  'time-zone': { kind: 'text', field: 'time_zone' },
  'working-hours': { kind: 'json', field: 'working_hours' },
};

export const AGENT_COMMANDS: Record<string, Command> = {
  'create-agent': {
    summary: 'Create an agent',
    method: 'POST',
    path: () => '/api/agents',
    flags: AGENT_FLAGS,
    sends: 'body',
  },
  'list-agents': {
    summary: 'List agents',
    method: 'GET',
    path: () => '/api/agents',
    flags: { active: { kind: 'bool', field: 'active' }, ...PAGE_FLAGS },
    sends: 'query',
  },
  'show-agent': {
    summary: 'Show an agent',
    method: 'GET',
    path: (id) => `/api/agents/${enc(id)}`,
    needsId: 'agent id',
  },
  'update-agent': {
    summary: 'Change an agent',
    method: 'PATCH',
    path: (id) => `/api/agents/${enc(id)}`,
    needsId: 'agent id',
    flags: AGENT_FLAGS,
    sends: 'body',
  },
};
