import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import type { Config } from './shared/config';
import { AllowedMethods, pathOf } from './shared/http/allowed-methods';
import { answerClientError, answerNotFound, toApiError } from './shared/http/fastify-errors';
import { opsRoutes } from './shared/http/ops-routes';
import { consumerGroupsOf } from './shared/kafka/consumer-groups';
import { registerConsumerLag } from './shared/kafka/consumer-lag';
import { requestLogView } from './shared/http/request-log';
import type { Logger } from './shared/logger';
import { ReplyWaiter } from './shared/kafka/reply-waiter';
import type { CallbackReply } from './shared/schemas';
import { systemClock, type Clock } from './shared/clock';
import { MinuteRecorder } from './shared/overview/minute-recorder';
import { minutesCollection } from './shared/overview/minute-counts';
import { startMailSender } from './shared/mail/mail-sender';
import { Mailer } from './shared/mail/mailer';
import { MailOutbox } from './shared/mail/outbox';
import { smtpRelay } from './shared/mail/smtp-relay';
import { dispatcherDeps, ingressDeps, managerOptions, processorDeps } from './role-deps';
import type { RoleHandle } from './shared/role';
import { startRuntime, type Runtime } from './shared/runtime';

// A role's code is loaded only in a process that runs it: the manager's and the portal's modules
// (sign-in, passkeys, alerts) are half of a process's heap, which a processor or a dispatcher
// would carry and mark at every full collection without ever running them.
const roleCode = {
  processor: () => require('./processor') as typeof import('./processor'),
  dispatcher: () => require('./dispatcher') as typeof import('./dispatcher'),
  ingress: () => require('./ingress') as typeof import('./ingress'),
  manager: () => require('./manager') as typeof import('./manager'),
  portal: () => require('./portal/api') as typeof import('./portal/api'),
  alerts: () => require('./alerts/commands') as typeof import('./alerts/commands'),
};

export interface App {
  runtime: Runtime;
  http: FastifyInstance;
  url: string;
  // Every route this process serves (method and fastify path), for the OpenAPI documents' test.
  routes: AllowedMethods;
  stop(): Promise<void>;
}

// Starts the configured roles in this process behind one HTTP server (ops endpoints always; the
// partner and manager APIs when the ingress role runs here). `clock`: the time the processor decides
// by (a test moves it on instead of waiting).
export async function startApp(config: Config, logger: Logger, clock: Clock = systemClock): Promise<App> {
  const runtime = await startRuntime(config, logger);
  const roles: RoleHandle[] = [];
  // The manager (hosted with the ingress) reads the dispatcher's replies to its commands; its
  // consumer joins while the roles start.
  const managerReplies = config.roles.includes('ingress')
    ? new ReplyWaiter<CallbackReply>(runtime.consumers, 'callbackReplies', `manager-${randomBytes(6).toString('hex')}`)
    : null;
  try {
    const joined = managerReplies?.start();
    joined?.catch(() => undefined); // awaited below, after the roles
    if (config.roles.includes('processor'))
      roles.push(await roleCode.processor().startProcessor(processorDeps(runtime, clock)));
    if (config.roles.includes('dispatcher'))
      roles.push(await roleCode.dispatcher().startDispatcher(dispatcherDeps(runtime)));
    if (config.roles.includes('ingress')) roles.push(await roleCode.ingress().startIngress(ingressDeps(runtime)));
    await joined;
  } catch (err) {
    await Promise.allSettled([...roles.map((r) => r.stop()), managerReplies?.stop()]);
    await runtime.close();
    throw err;
  }
  const roleUp = new Gauge({
    name: 'lead_intake_role_up',
    help: 'Roles this process runs, 1 each: an absent role means no instance of it is scraped',
    labelNames: ['role'],
    registers: [runtime.metrics],
  });
  for (const role of config.roles) roleUp.set({ role }, 1);
  // The overview's minutes (src/shared/overview): written where the charts' counters are counted.
  const minutes = config.roles.some((r) => r === 'ingress' || r === 'dispatcher')
    ? new MinuteRecorder(
        runtime.metrics,
        minutesCollection(runtime.mongo.db),
        `${hostname()}-${randomBytes(4).toString('hex')}`,
        systemClock,
        logger.child({ component: 'overview-minutes' }),
      )
    : null;
  minutes?.start();
  // The outbox's sender runs where the manager does, which is what puts mail in it.
  const outbox = managerReplies && config.mail ? new MailOutbox(runtime.mongo.db, runtime.cipher, systemClock) : null;
  const mail =
    outbox && config.mail
      ? await startMailSender(
          outbox,
          smtpRelay(config.mail, hostname()),
          config.mail,
          runtime.metrics,
          logger.child({ component: 'mail' }),
        )
      : null;
  // The alerts worker queues into the outbox, so it runs where the sender does.
  const alerts =
    outbox && mail && config.mail
      ? await roleCode.alerts().startAlertsWorker({
          consumers: runtime.consumers,
          db: runtime.mongo.db,
          partners: runtime.mongo.collections.partners,
          redis: runtime.redis,
          // The sender's own outbox: it hears of each alert's mail as it is queued.
          mailer: new Mailer(outbox, config.serviceName, config.mail.pagesUrl),
          config: config.alerts,
          webhooks: { partners: runtime.partners, callbacks: config.callbacks, serviceName: config.serviceName },
          clock: systemClock,
          metrics: runtime.metrics,
          logger,
        })
      : null;
  registerConsumerLag(
    runtime.metrics,
    runtime.admin,
    consumerGroupsOf(config.roles, config.kafka.topicPrefix, runtime.topics),
    logger,
  );

  const partnerApi = config.roles.includes('ingress') ? roleCode.ingress().PARTNER_API_PREFIX : null;
  const http = Fastify({
    loggerInstance: logger.child({ component: 'http' }, { serializers: { req: requestLogView } }) as FastifyBaseLogger,
    trustProxy: config.http.trustedProxies.length > 0 ? [...config.http.trustedProxies] : false,
    bodyLimit: config.intake.bodyLimitBytes,
    // The partner API writes its own one line per request (partner, outcome, ms); fastify's two more
    // lines per request, each redacted, were a tenth of the ingress's CPU under load.
    logController: new LogController({
      disableRequestLogging: (req: { url: string }) => partnerApi !== null && req.url.startsWith(partnerApi),
    }),
    // external_id may be 128 characters, more once percent-encoded; fastify's default is 100.
    routerOptions: { maxParamLength: 1024 },
    // What never reaches a route still answers {error, message} with a code of the registry.
    frameworkErrors: (_err, req, reply) => answerNotFound(reply, allowed.forPath(pathOf(req.url))),
    clientErrorHandler: answerClientError,
  });
  const allowed = new AllowedMethods();
  http.addHook('onRoute', (route) => allowed.record(route));
  http.setNotFoundHandler((req, reply) => answerNotFound(reply, allowed.forPath(pathOf(req.url))));
  // fastify checks a body method's Content-Type (QUERY) before it finds no route; that is still a 405 or 404.
  http.setErrorHandler((err, req, reply) => {
    if (req.is404) return answerNotFound(reply, allowed.forPath(pathOf(req.url)));
    const api = toApiError(err, config.intake.bodyLimitBytes);
    if (api.status >= 500) req.log.error({ err }, 'request failed');
    return reply.code(api.status).headers(api.headers).send(api.body());
  });
  const checks = [...runtime.readiness, ...roles.flatMap((r) => r.readiness ?? [])];
  await http.register(opsRoutes(checks, runtime.metrics));
  for (const role of roles) if (role.routes) await http.register(role.routes);
  if (managerReplies) {
    // The manager and the partner portal, side by side over the same services.
    const o = managerOptions(runtime, managerReplies, outbox);
    const { managerPlugin, managerServices } = roleCode.manager();
    const services = managerServices(o);
    const portal = roleCode.portal().partnerPortal(o, services, systemClock);
    await http.register(managerPlugin, { ...o, services, portalRoutes: [portal.invitations, portal.emails] });
    await http.register(portal.plugin);
  }
  const url = await http.listen({ host: config.http.host, port: config.http.port });
  logger.info({ url, roles: config.roles }, 'lead intake started');

  return {
    runtime,
    http,
    url,
    routes: allowed,
    async stop() {
      await http.close();
      await managerReplies?.stop();
      // The roles side by side: each waits out its consumers' last fetch, and none waits on another.
      const stopped = await Promise.allSettled(roles.map((role) => role.stop()));
      for (const s of stopped) if (s.status === 'rejected') throw s.reason;
      await minutes?.stop();
      await alerts?.stop();
      await mail?.stop();
      await runtime.close();
    },
  };
}
