--[[
  Ends the processing of an Idempotency-Key claimed with admission.lua.

  Input:
    KEYS[1]  the record, "<prefix>idem:<partner id>:<key>"
    ARGV[1]  "done" to store the final answer, or "release" to let the next retry take over at once
             (no final answer: decision timeout, Kafka or database error)
    ARGV[2]  HTTP status of the final answer ("done" only)
    ARGV[3]  response body, JSON ("done" only)

  Output:
    1  written
    0  the record is gone (expired): nothing is written, so no record outlives its window
]]
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
  return 0
end
if ARGV[1] == 'done' then
  redis.call('HSET', key, 'state', 'done', 'http_status', ARGV[2], 'response', ARGV[3])
elseif redis.call('HGET', key, 'state') == 'processing' then
  redis.call('HSET', key, 'started_at', 0)
end
return 1
