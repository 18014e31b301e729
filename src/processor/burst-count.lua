--[[
  Counts the intake commands seen from each IP and each subnet of a chunk in a sliding window,
  shared by every processor instance. Each command is a member of a sorted set scored by the time it
  was received, so a redelivered or retried command (same member) is counted once. The chunk's
  sightings are counted in order, so a second lead of one IP in the chunk counts the first.

  Input (n sightings):
    KEYS[2i-1]  the i-th sighting's IP window, e.g. "<prefix>burst:ip:<keyed hash of the IP>"
    KEYS[2i]    its subnet's window, "<prefix>burst:subnet:<keyed hash of the subnet>"
    ARGV[1]     window length in milliseconds
    ARGV[2]     now, in milliseconds (the processor's clock)
    ARGV[2i+1]  the i-th sighting's member: the command's decision id (<partner id>:<idempotency key>)
    ARGV[2i+2]  when it was received, in milliseconds

  Output: the number of commands in each window, this one included, in the order of KEYS
]]
local window = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local counts = {}
for i, key in ipairs(KEYS) do
  local s = math.floor((i + 1) / 2)
  redis.call('ZADD', key, 'NX', tonumber(ARGV[2 * s + 2]), ARGV[2 * s + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  redis.call('PEXPIRE', key, window)
  counts[i] = redis.call('ZCARD', key)
end
return counts
