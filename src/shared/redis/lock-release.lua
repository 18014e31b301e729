--[[
  Releases a document lock only if the caller still holds it (its token is the value), so a lock
  that expired and was taken by someone else is never released by the late former holder.

  Input:
    KEYS[1]  the lock, e.g. "<prefix>lock:lead:le-42"
    ARGV[1]  the holder's token

  Output:
    1  released
    0  not held by this token (expired, or taken by another holder)
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
