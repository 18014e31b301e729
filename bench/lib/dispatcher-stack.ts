import { loadConfig, type Config } from '../../src/shared/config';
import { createLogger } from '../../src/shared/logger';
import { startRuntime, type Runtime } from '../../src/shared/runtime';
import type { LeadEvent } from '../../src/shared/schemas';
import { partnerService } from '../../src/manager/services';
import type { BenchContext } from './context';
import { scenarioEnv } from './env';
import type { Watched } from './proc';
import { startRole, type Helper, type RoleProcess } from './roles';
import { dropScenario } from './setup';

// A dispatcher as its own process in a namespace of its own (topics, database, Redis prefix), the
// bench's own clients to the same namespace, and what the dispatcher scenario does with them:
// partners routed to the receiver, lead events published straight onto the dispatcher's topic.
export interface DispatcherStack {
  role: RoleProcess;
  runtime: Runtime;
  config: Config;
  tag: string;
  // A partner whose endpoint is the receiver's `/<name>` (failing its first `failFirst` attempts of
  // each event), or `callbackUrl`.
  partner(name: string, failFirst: number, callbackUrl?: string): Promise<string>;
  event(partnerId: string): LeadEvent;
  publish(events: LeadEvent[]): Promise<void>;
  watched(): Watched[];
  // Stops the dispatcher and removes the namespace.
  stop(): Promise<void>;
}

export interface StackOptions {
  env: Record<string, string>; // settings of the role, over the scenario's
  logDir: string;
  cpuProfDir?: string;
}

export async function startDispatcherStack(
  ctx: BenchContext,
  receiver: Helper,
  opts: StackOptions,
): Promise<DispatcherStack> {
  const { env, tag } = scenarioEnv('dispatcher', ctx.opts.logLevel, { ...ctx.opts.roleEnv, ...opts.env });
  let role: RoleProcess | null = null;
  let runtime: Runtime | null = null;
  const stop = async () => {
    await role?.stop().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await dropScenario(env);
  };
  try {
    role = await startRole('dispatcher', env, {
      logDir: opts.logDir,
      cpuProfDir: opts.cpuProfDir,
      nodeOptions: ctx.opts.nodeOptions,
    });
    const config = loadConfig({ ...env, ROLE: 'dispatcher' });
    runtime = await startRuntime(config, createLogger('error'));
    const rt = runtime;
    const started = role;
    const base = await receiver.request<string>({ type: 'base' });
    let seq = 0;
    return {
      role: started,
      runtime: rt,
      config,
      tag,
      async partner(name, failFirst, callbackUrl = `${base}/${name}`) {
        const { partner: p, secrets } = await partnerService(rt).create({ name, callback_url: callbackUrl });
        await receiver.request({ type: 'route', path: `/${name}`, secret: secrets.callback_secret, failFirst });
        return p.id;
      },
      event(partnerId) {
        const lead = `le-${++seq}`;
        return {
          event_id: `${lead}:0`,
          event: 'lead.accepted',
          lead_id: lead,
          partner_id: partnerId,
          external_lead_id: `ext-${tag}-${seq}`,
          our_status: 'new',
          is_depositor: false,
          occurred_at: new Date().toISOString(),
        };
      },
      async publish(events) {
        for (let i = 0; i < events.length; i += 500) {
          const chunk = events.slice(i, i + 500);
          const messages = await Promise.all(
            chunk.map(async (e) => ({ key: e.lead_id, value: await rt.codec.encode('leadEvents', e) })),
          );
          await rt.producer.send({ topic: rt.topics.leadEvents, messages });
        }
      },
      watched: () => [
        { name: 'dispatcher', pid: started.pid },
        { name: 'receiver', pid: receiver.pid },
        ...ctx.services(),
      ],
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
