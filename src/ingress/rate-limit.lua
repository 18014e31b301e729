--[[
  Sliding-window log rate limit for one partner and endpoint (spec 8), and for the failed
  authentications of one client address.

  Every allowed request is a member of a sorted set scored by its time in milliseconds. Time comes
  from the Redis server (TIME), so every ingress instance judges by the same clock. A refused
  request is not recorded: a partner that keeps retrying does not push its own window forward.

  Input:
    KEYS[1]  the window, e.g. "<prefix>rl:intake:<partner id>" or "<prefix>af:<client ip>"
    ARGV[1]  limit: requests allowed per window
    ARGV[2]  window length in milliseconds
    ARGV[3]  member id, unique per request (instance id and a counter); empty to only ask

  Output: { allowed, retry_after_ms }
    { 1, 0 }   allowed (and recorded, unless only asked)
    { 0, ms }  refused; the next request is allowed in ms milliseconds
]]
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)

if count < limit then
  if ARGV[3] ~= '' then
    redis.call('ZADD', key, now, ARGV[3])
    redis.call('PEXPIRE', key, window)
  end
  return { 1, 0 }
end

-- A request fits again once all but limit - 1 entries have left the window: the entry at rank
-- count - limit is the one whose departure frees the slot (rank 0, the oldest, unless the limit was lowered).
local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
return { 0, tonumber(freeing[2]) + window - now }
