--[[
  Counts the intake commands seen from one IP (or one subnet) in a sliding window, shared by every
  processor instance. Each command is a member of a sorted set scored by the time it was received,
  so a redelivered or retried command (same member) is counted once.

  Input:
    KEYS[1]  the window, e.g. "<prefix>burst:ip:<keyed hash of the IP>"
    ARGV[1]  window length in milliseconds
    ARGV[2]  now, in milliseconds (the processor's clock)
    ARGV[3]  member: the command's decision id (<partner id>:<idempotency key>)
    ARGV[4]  when the command was received, in milliseconds

  Output: the number of commands in the window, this one included
]]
local key = KEYS[1]
local window = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
redis.call('ZADD', key, 'NX', tonumber(ARGV[4]), ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
redis.call('PEXPIRE', key, window)
return redis.call('ZCARD', key)
