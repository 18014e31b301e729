--[[
  Gives back one sign-in attempt's charge on the failure counters (sign-in-throttle.ts): the attempt
  was refused before anything was verified, or it was right. A counter whose window ended meanwhile is
  left alone, so none is brought back without its expiry.

  Input:
    KEYS[1..4]  the counters the attempt was charged on: its account and network, its network, its
                account, its device cookie (the fourth only when ARGV[1] is 4)
    ARGV[1]     how many of KEYS were charged (3 or 4)

  Output:
    0
]]
for i = 1, tonumber(ARGV[1]) do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('DECR', KEYS[i])
  end
end
return 0
