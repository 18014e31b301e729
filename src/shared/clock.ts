// Where the stores, the lead owners and the batch steps get the time: passed in, so a test can fix
// it. Pure decisions take `now` as a value instead; log lines, metrics and timers read the system's.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
