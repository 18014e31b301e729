--[[
  Claims an Idempotency-Key for one request, or says why it cannot (spec 5.2).

  The record is a hash: state ("processing" or "done"), body_hash, started_at (ms, Redis clock)
  and, once done, http_status and response. It expires with the idempotency window from the
  first request; later writes keep that expiry.

  A "processing" record older than the stale time belongs to a request that gave up (decision
  timeout, Kafka error) or to an instance that died: the caller takes it over and re-sends the
  command, which is safe because the processor decides once per (partner, key) and answers a
  re-sent command with its stored decision.

  Input:
    KEYS[1]  the record, "<prefix>idem:<partner id>:<key>"
    ARGV[1]  HMAC-SHA256 (HASH_KEY) of the raw request body
    ARGV[2]  stale time in milliseconds (the decision timeout)
    ARGV[3]  idempotency window in seconds

  Output:
    { 'claimed' }                       new record; process the request
    { 'taken_over' }                    stale processing record, now ours; process again
    { 'in_use' }                        another request with this key is being processed
    { 'mismatch' }                      the key was used with another body
    { 'done', http_status, response }   the stored final answer
]]
local key = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local rec = redis.call('HMGET', key, 'state', 'body_hash', 'started_at', 'http_status', 'response')
if not rec[1] then
  redis.call('HSET', key, 'state', 'processing', 'body_hash', ARGV[1], 'started_at', now)
  redis.call('EXPIRE', key, tonumber(ARGV[3]))
  return { 'claimed' }
end

if rec[2] ~= ARGV[1] then
  return { 'mismatch' }
end

if rec[1] == 'done' then
  return { 'done', rec[4], rec[5] }
end

if now - tonumber(rec[3]) < tonumber(ARGV[2]) then
  return { 'in_use' }
end

redis.call('HSET', key, 'started_at', now)
return { 'taken_over' }
