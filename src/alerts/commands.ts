// The alerts' public face (STYLE rule 15): what other roles use of them. A role publishes what
// happened (AlertEvents, on partners.alerts); the alerts worker, hosted where the mail sender runs,
// decides who is told and queues the mail; the manager's and the portal's routes let each person
// choose their alerts.
export { AlertEvents, type AlertEventsDeps } from './alert-events';
export { startAlertsWorker, type AlertsDeps, type AlertsWorker } from './alerts-worker';
export { alertPreferenceRoutes, type AlertRouteDeps } from './alert-routes';
export { alertWebhookRoutes, type WebhookRouteDeps } from './webhook-routes';
export { ALERT_KINDS, type AlertKind } from './alert-kinds';
