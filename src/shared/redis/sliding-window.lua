--[[
  Sliding-window log, shared by the scripts that count requests (put in front of them,
  lua-script.ts): the partner's rate limit (spec 8), the failed authentications of one client
  address and the contacts revealed for one agent.

  Every allowed request is a member of a sorted set scored by its time in milliseconds. Time comes
  from the Redis server (TIME), so every ingress instance judges by the same clock. A refused
  request is not recorded: a partner that keeps retrying does not push its own window forward.
]]
local function redis_now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Returns 1, 0 when a request fits (recorded as member, unless member is empty: only ask), else 0
-- and the milliseconds until one fits.
local function window_take(key, limit, window, member, now)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count < limit then
    if member ~= '' then
      redis.call('ZADD', key, now, member)
      redis.call('PEXPIRE', key, window)
    end
    return 1, 0
  end
  -- A request fits again once all but limit - 1 entries have left the window: the entry at rank
  -- count - limit is the one whose departure frees the slot (rank 0, the oldest, unless the limit was lowered).
  local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  return 0, tonumber(freeing[2]) + window - now
end
