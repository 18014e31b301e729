--[[
  Takes one place for an accepted lead under every cap it counts against, or none (caps.ts).

  Atomic in Redis, so however many ingress and processor instances decide leads of one partner at
  once, a counter never goes past its limit. The verdict is remembered per intake command, so a
  redelivered chunk gets the same verdict and counts nothing twice.

  Input:
    KEYS[1]     the command's verdict, "<prefix>cap:decided:<partner id>:<idempotency key>"
    KEYS[2..5]  counters in the order they are checked; unused ones have limit -1 and are not touched
    ARGV[1]     seconds to remember the verdict
    ARGV[2..13] per counter, three values: limit, seconds to keep the counter, scope name

  Output: "ok" (counted under every cap) or the scope name of the first full counter (nothing counted)
]]
local verdict = redis.call('GET', KEYS[1])
if verdict then return verdict end

verdict = 'ok'
for i = 2, #KEYS do
  local limit = tonumber(ARGV[(i - 2) * 3 + 2])
  if limit >= 0 and tonumber(redis.call('GET', KEYS[i]) or '0') >= limit then
    verdict = ARGV[(i - 2) * 3 + 4]
    break
  end
end

if verdict == 'ok' then
  for i = 2, #KEYS do
    if tonumber(ARGV[(i - 2) * 3 + 2]) >= 0 then
      redis.call('INCR', KEYS[i])
      redis.call('EXPIRE', KEYS[i], ARGV[(i - 2) * 3 + 3])
    end
  end
end
redis.call('SET', KEYS[1], verdict, 'EX', ARGV[1])
return verdict
