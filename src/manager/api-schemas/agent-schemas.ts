import { PAGE_QUERY } from '../pagination';
import {
  answers,
  BODY_ERRORS,
  dateTime,
  ID_ERRORS,
  idParams,
  nullable,
  object,
  str,
} from '../../shared/http/schema-parts';
import { page } from './list-shapes';
import { nonEmpty, propertiesOf, withName } from './shared-settings';

// Route schemas of the agents leads are distributed to.
const AGENTS = ['agents'];

// time_zone, working_hours and supervisor_id are shown only when set (absent: UTC, always on shift, no team).
const agentProperties = {
  id: str,
  ...propertiesOf('agent.json'),
  last_assigned_at: nullable('string', { format: 'date-time' }),
  created_at: dateTime,
  updated_at: dateTime,
};
const agent = object(
  agentProperties,
  Object.keys(agentProperties).filter((k) => !['time_zone', 'working_hours', 'supervisor_id'].includes(k)),
);

export const agentSchemas = {
  createAgent: {
    tags: AGENTS,
    summary: 'Create an agent; leads waiting for one are distributed to it',
    body: withName('agent.json'),
    response: answers({ 201: agent }, ...BODY_ERRORS),
  },
  listAgents: {
    tags: AGENTS,
    summary: 'List agents',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { active: { type: 'boolean' }, ...PAGE_QUERY },
    },
    response: answers({ 200: page(agent) }, 422),
  },
  showAgent: {
    tags: AGENTS,
    summary: 'Show one agent',
    params: idParams,
    response: answers({ 200: agent }, ...ID_ERRORS),
  },
  updateAgent: {
    tags: AGENTS,
    summary: 'Change an agent (active flag, countries, languages, name, time zone, working hours)',
    params: idParams,
    body: nonEmpty('agent.json'),
    response: answers({ 200: agent }, ...ID_ERRORS, ...BODY_ERRORS),
  },
} as const;
