--[[
  The claim of an Idempotency-Key (spec 5.2), shared by the scripts that take one (put in
  front of them, lua-script.ts).

  The record is a hash: state ("processing" or "done"), body_hash, started_at (ms, Redis clock)
  and, once done, http_status and response. It expires with the idempotency window from the
  first request; later writes keep that expiry (idempotency-settle.lua).

  A "processing" record older than the stale time belongs to a request that gave up (decision
  timeout, Kafka error) or to an instance that died: the caller takes it over and re-sends the
  command, which is safe because the processor decides once per (partner, key) and answers a
  re-sent command with its stored decision.

  Returns:
    { 'claimed' }                       new record; process the request
    { 'taken_over' }                    stale processing record, now ours; process again
    { 'in_use' }                        another request with this key is being processed
    { 'mismatch' }                      the key was used with another body
    { 'done', http_status, response }   the stored final answer
]]
local function idempotency_claim(key, body_hash, stale_ms, window_s, now)
  local rec = redis.call('HMGET', key, 'state', 'body_hash', 'started_at', 'http_status', 'response')
  if not rec[1] then
    redis.call('HSET', key, 'state', 'processing', 'body_hash', body_hash, 'started_at', now)
    redis.call('EXPIRE', key, window_s)
    return { 'claimed' }
  end
  if rec[2] ~= body_hash then
    return { 'mismatch' }
  end
  if rec[1] == 'done' then
    return { 'done', rec[4], rec[5] }
  end
  if now - tonumber(rec[3]) < stale_ms then
    return { 'in_use' }
  end
  redis.call('HSET', key, 'started_at', now)
  return { 'taken_over' }
end
